package dev.bulwark.internal.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Issue 20: the sampler times every call at low rates and between 1,000 and 2,000 a second at high ones. */
class TimingSamplerTest {

    @Test
    void theMaskTimesBetweenOneAndTwoThousandCallsASecondUpToOneIn256() {
        assertThat(TimingSampler.maskFor(10)).isZero();
        assertThat(TimingSampler.maskFor(1_999)).isZero();
        assertThat(TimingSampler.maskFor(2_000)).isEqualTo(1);
        assertThat(TimingSampler.maskFor(40_000)).isEqualTo(31);
        assertThat(TimingSampler.maskFor(10_000_000)).isEqualTo(TimingSampler.MAX_MASK);
        for (double rate = 1; rate < 256_000; rate *= 1.3) {
            double timedPerSecond = rate / (TimingSampler.maskFor(rate) + 1);
            assertThat(timedPerSecond).as("at %s calls/s", rate).isLessThan(2_000)
                    .isGreaterThanOrEqualTo(Math.min(rate, 1_000));
        }
    }

    @Test
    void theMaskFollowsTheRateUpAndDown() {
        TimingSampler sampler = TimingSampler.adaptive();
        long now = 0;
        // 1,000,000 calls a second, every one timed while the mask is 0: the first window raises it to the top.
        for (int i = 0; i < 100_001; i++) {
            now += 1_000;
            if (sampler.shouldTime()) {
                sampler.timed(now);
            }
        }
        assertThat(sampler.mask()).isEqualTo(TimingSampler.MAX_MASK);
        // Then 10 calls a second: the first timed call after the window adapts the mask back at once.
        // (One call in 256 is timed meanwhile: 20,000 calls leave no realistic chance that none is.)
        for (int i = 0; i < 20_000 && sampler.mask() != 0; i++) {
            now += 100_000_000;
            if (sampler.shouldTime()) {
                sampler.timed(now);
            }
        }
        assertThat(sampler.mask()).isZero();
    }

    @Test
    void anExactSamplerTimesEveryCall() {
        TimingSampler sampler = TimingSampler.exact();
        for (long now = 0; now < 1_000_000_000L; now += 1_000) {
            assertThat(sampler.shouldTime()).isTrue();
            sampler.timed(now);
        }
        assertThat(sampler.mask()).isZero();
    }
}
