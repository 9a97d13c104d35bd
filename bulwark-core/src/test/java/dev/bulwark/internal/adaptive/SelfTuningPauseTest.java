package dev.bulwark.internal.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.AdaptiveLimit;
import org.junit.jupiter.api.Test;

/**
 * {@link SelfTuningLimiter} after a pause of the resource (a garbage-collection pause, a noisy neighbour), driven
 * with synthetic windows as the simulator's {@code grid-pause-500ms} traced them: a reference learnt low from the
 * first, small windows (16.5 ms of a 20 ms resource), then thousands of calls at the limit reading 20 ms, then a
 * window that shared a pause. The cut the pause causes is undone as soon as a window at the lower limit reads what
 * the windows near the old limit read; a capacity that really fell keeps its cut after one test half-way back.
 */
class SelfTuningPauseTest {

    private static final double MS = 1e6;
    /** The resource's uncontended latency. */
    private static final double SERVICE = 20 * MS;

    private final SelfTuningLimiter limiter =
            new SelfTuningLimiter(AdaptiveLimit.selfTuning().maxLimit(200).build(), 4);
    private int limit = 4;
    private long now;

    /**
     * Closes a window at the current limit, all of it in use, with exponential-like latencies of the given mean
     * (coefficient of variation 1, so it is judged on the arithmetic mean), {@code millis} later; applies the
     * decision as {@link WindowedLimiter} does.
     */
    private void window(long samples, double mean, long millis) {
        now += millis * 1_000_000L;
        WindowedLimiter.Window w = new WindowedLimiter.Window();
        w.limit = limit;
        w.samples = samples;
        w.maxInFlight = limit;
        w.closedAt = now;
        w.arithmeticMeanNanos = mean;
        w.arithmeticVarianceNanos2 = mean * mean;
        // Exponential latencies: geometric mean e^-0.577 of the mean, logarithms' standard deviation 1.28.
        w.geometricMeanNanos = mean * 0.5615;
        w.geometricVarianceNanos2 = 1.645 * w.geometricMeanNanos * w.geometricMeanNanos;
        w.judgeBy(false);
        double decided = limiter.decide(w);
        if (!Double.isNaN(decided)) {
            limiter.estimatedLimit = Math.max(1, Math.min(200, decided));
        }
        limit = limiter.clamp(limiter.estimatedLimit);
    }

    /** The resource at the current limit: {@code (n/c)^2} slower above its capacity {@code c}. */
    private double latency(int capacity) {
        return SERVICE * Math.max(1.0, Math.pow((double) limit / capacity, 2));
    }

    /** The first measurement and slow start read 16.5 ms by chance, then windows at the limit read the truth. */
    private int settle() {
        window(64, 16.5 * MS, 300);
        for (int i = 0; i < 4; i++) {
            window(40, 16.5 * MS, 150);
        }
        for (int i = 0; i < 5; i++) {
            window(1_300, latency(20), 1_300);
        }
        assertThat(limit).as("settled at the capacity").isBetween(17, 22);
        return limit;
    }

    @Test
    void theCutAPauseCausesIsUndoneOnceALowerLimitReadsWhatTheOldOneRead() {
        int before = settle();

        window(24, 250 * MS, 300); // the calls in flight waited out a pause
        int cut = limit;
        assertThat(cut).as("a twelvefold slowdown cuts deep").isLessThan(before / 2);

        // The pause followed a slower window, so the cut is checked first by a measurement at half the limit,
        // which finds the resource unchanged; then windows at the lower limit read the resource's 20 ms: above
        // 1 + 1/limit times the 16.5 ms learnt at low limits, so not clearly anything against that reference (the
        // old code held the limit there until the next re-measurement), but what the thousands of calls near
        // the old limit read. Two steps back: the geometric mean of the two limits, then the old one.
        for (int i = 0; i < 3; i++) {
            window(128, latency(20), 300);
        }
        assertThat(limit).as("back at the limit of before the pause (cut to %d)", cut).isEqualTo(before);
    }

    @Test
    void aCapacityThatFellKeepsItsCutAfterOneTestHalfWayBack() {
        int before = settle();

        // The capacity falls to a quarter: at the moment of the cut it reads just like a pause.
        int highest = 0;
        for (int i = 0; i < 12; i++) {
            window(i == 0 ? 24 : 40, latency(5), 300);
            if (i >= 1) {
                highest = Math.max(highest, limit);
            }
        }
        assertThat(highest).as("one test half-way back, never the old limit %d", before).isLessThan(before / 2 + 2);
        assertThat(limit).as("near the new capacity").isBetween(3, 7);
    }
}
