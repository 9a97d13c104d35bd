package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DistributionTest {

    @Test
    void parsesEveryShape() {
        assertThat(Distribution.parse("fixed:20ms")).isEqualTo(new Distribution.Fixed(Duration.ofMillis(20)));
        assertThat(Distribution.parse("20ms")).isEqualTo(new Distribution.Fixed(Duration.ofMillis(20)));
        assertThat(Distribution.parse("exp:20ms")).isEqualTo(new Distribution.Exponential(Duration.ofMillis(20)));
        assertThat(Distribution.parse("lognormal:median=20ms,p99=200ms"))
                .isEqualTo(new Distribution.LogNormal(Duration.ofMillis(20), Duration.ofMillis(200)));
        assertThat(Distribution.parse("lognormal:p99=1s, median=10ms"))
                .isEqualTo(new Distribution.LogNormal(Duration.ofMillis(10), Duration.ofSeconds(1)));
    }

    @Test
    void writesWhatItParses() {
        for (String spec : new String[] {"fixed:20ms", "exp:1.5s", "lognormal:median=20ms,p99=200ms",
            "pareto:mean=20ms,shape=2.5", "pareto:mean=20ms,shape=3"}) {
            assertThat(Distribution.parse(spec).spec()).isEqualTo(spec);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"exp", "exp:", "exp:0ms", "gauss:20ms", "lognormal:median=20ms",
        "lognormal:median=20ms,p99=10ms", "lognormal:median=20ms,p99=200ms,p50=1ms", "lognormal:20ms,200ms",
        "fixed:fast", "20", "pareto:mean=20ms", "pareto:mean=20ms,shape=1", "pareto:mean=0ms,shape=2",
        "pareto:mean=20ms,shape=x", "mix:fast=5ms,slow=100ms", "mix:fast=5ms,slow=1ms,share=10%",
        "mix:fast=5ms,slow=100ms,share=0%", "mix:fast=5ms,slow=100ms,share=10"})
    void rejectsAnythingElseNamingTheForms(String text) {
        assertThatThrownBy(() -> Distribution.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fixed:20ms, exp:20ms, lognormal:median=20ms,p99=200ms, "
                        + "pareto:mean=20ms,shape=2.5 or mix:fast=5ms,slow=100ms,share=10%")
                .hasMessageContaining("'" + text + "'");
    }

    @Test
    void fixedAlwaysGivesItsValue() {
        Distribution fixed = Distribution.parse("fixed:20ms");
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 100; i++) {
            assertThat(fixed.sampleNanos(random)).isEqualTo(20_000_000L);
        }
    }

    @Test
    void exponentialHasItsMeanAndTail() {
        long[] samples = draw(Distribution.parse("exp:20ms"), 200_000);

        assertThat(Arrays.stream(samples).average().orElseThrow() / 1e6).isCloseTo(20.0, within(0.3));
        // p99 of an exponential distribution is ln(100) = 4.6 times its mean.
        assertThat(percentile(samples, 0.99) / 1e6).isCloseTo(92.1, within(2.0));
    }

    @Test
    void logNormalHasItsMedianAndP99() {
        Distribution logNormal = Distribution.parse("lognormal:median=20ms,p99=200ms");
        long[] samples = draw(logNormal, 200_000);

        assertThat(percentile(samples, 0.50) / 1e6).isCloseTo(20.0, within(0.4));
        assertThat(percentile(samples, 0.99) / 1e6).isCloseTo(200.0, within(8.0));
        assertThat(Arrays.stream(samples).average().orElseThrow()).isCloseTo(logNormal.meanNanos(),
                within(logNormal.meanNanos() * 0.02));
    }

    @Test
    void paretoHasItsMeanAndItsScaleAsTheShortestSample() {
        Distribution pareto = Distribution.parse("pareto:mean=20ms,shape=3");
        long[] samples = draw(pareto, 400_000);

        // Shape 3: finite variance (mean^2 / 3), so the sample mean is within a few tenths of a millisecond.
        assertThat(Arrays.stream(samples).average().orElseThrow() / 1e6).isCloseTo(20.0, within(0.4));
        // No sample below the scale, mean (a - 1) / a = 13.33 ms; the median is scale * 2^(1/a) = 16.8 ms.
        assertThat(Arrays.stream(samples).min().orElseThrow() / 1e6).isGreaterThanOrEqualTo(13.33);
        assertThat(percentile(samples, 0.50) / 1e6).isCloseTo(16.80, within(0.3));
    }

    @Test
    void theSameSeedGivesTheSameSamples() {
        Distribution logNormal = Distribution.parse("lognormal:median=20ms,p99=200ms");

        assertThat(draw(logNormal, 1000)).isEqualTo(draw(logNormal, 1000));
    }

    private static long[] draw(Distribution distribution, int count) {
        SplittableRandom random = new SplittableRandom(42);
        long[] samples = new long[count];
        for (int i = 0; i < count; i++) {
            samples[i] = distribution.sampleNanos(random);
        }
        return samples;
    }

    private static double percentile(long[] samples, double quantile) {
        long[] sorted = samples.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.floor(quantile * (sorted.length - 1))];
    }

    @Test
    void aMixtureHasItsMeanItsSlowShareAndReadsWhatItWrites() {
        Distribution.Mixture mixture = Distribution.Mixture.ofMean(java.time.Duration.ofMillis(20), 50, 0.10);
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        int samples = 200_000;
        double sum = 0;
        long aboveFastTail = 0;
        for (int i = 0; i < samples; i++) {
            long nanos = mixture.sampleNanos(random);
            sum += nanos;
            // Far beyond the fast calls' tail (a fast mean of about 3.4 ms), nearly only slow calls.
            aboveFastTail += nanos > 60_000_000L ? 1 : 0;
        }

        assertThat(mixture.meanNanos()).isCloseTo(20e6, org.assertj.core.data.Offset.offset(1e3));
        assertThat(sum / samples).isCloseTo(20e6, org.assertj.core.data.Percentage.withPercentage(3));
        // Slow calls have a mean of about 170 ms: about 70% of them last beyond 60 ms.
        assertThat((double) aboveFastTail / samples).isBetween(0.06, 0.08);
        // The spec rounds to three significant digits, as every distribution's does.
        assertThat(Distribution.parse(mixture.spec()).spec()).isEqualTo("mix:fast=3.39ms,slow=169ms,share=10%");
        assertThat(Distribution.parse("mix:fast=5ms,slow=100ms,share=10%").meanNanos()).isCloseTo(14.5e6,
                org.assertj.core.data.Offset.offset(1.0));
    }
}
