package dev.bulwark.internal.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.AdaptiveLimit;
import org.junit.jupiter.api.Test;

/**
 * {@link SelfTuningLimiter} after a capacity step up, driven with synthetic windows as the simulator's
 * {@code grid-step-up-4x} traced them (seed 4): the reference at low limits rests on a few hundred calls that read
 * 19.2 ms of a 20 ms resource, the limit has spent the capacity-20 phase at 21 (thousands of calls a little
 * slower, 22 ms) and 20 (the resource's 20 ms), and then the capacity rises to 80. Windows at 21 now read the
 * resource's uncontended latency, 20.2 ms: clearly faster than the thousands of calls at 21 before, but above
 * {@code 1 + 1/21} times the thin reference, which is exactly as uncertain as that margin.
 */
class SelfTuningStepUpTest {

    private static final double MS = 1e6;

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

    /**
     * What a window at the current limit reads: at 16 and below (the first measurement, slow start's first
     * windows, the re-measurements) 19.2 ms, low by chance as in the trace; above, {@code uncontended} up to the
     * capacity and {@code (n/c)^2} times that beyond it.
     */
    private double latency(int capacity, double uncontended) {
        return limit <= 16 ? 19.2 * MS : uncontended * Math.max(1.0, Math.pow((double) limit / capacity, 2));
    }

    /**
     * A window of 64 round trips' worth of calls (the longest a window runs), 20 ms each; at 16 and below a
     * re-measurement's 128 calls.
     */
    private void longWindow(int capacity, double uncontended) {
        window(limit <= 16 ? 128 : 64L * limit, latency(capacity, uncontended), limit <= 16 ? 200 : 64L * 20);
    }

    @Test
    void windowsReadingTheResourceAgainAfterAStepUpGrowTheLimitAlthoughTheReferenceIsThin() {
        window(64, 19.2 * MS, 300);
        for (int i = 0; i < 3; i++) {
            window(40, latency(20, 20 * MS), 150);
        }
        for (int i = 0; i < 6; i++) {
            longWindow(20, 20 * MS);
        }
        assertThat(limit).as("settled at the capacity of 20").isBetween(19, 22);

        // The capacity rises to 80: every window now reads the uncontended 20.2 ms. Against 19.2 ms learnt from a
        // few hundred calls (a standard error of about 1.2 ms, while 1 + 1/21 leaves 0.9 ms) the first windows at
        // 21 are neither clearly below their threshold nor, by their point estimate, below it at all: the old
        // code held the limit there until a re-measurement. The pool of every limit below 21 (thousands of calls
        // at 20 ms) agrees with the reference within the reference's own error, so the window is held to that
        // pool's threshold instead, and is clearly faster than the calls at 21 before the step.
        int before = limit;
        int highest = limit;
        for (int i = 0; i < 6; i++) {
            longWindow(80, 20.2 * MS);
            highest = Math.max(highest, limit);
        }
        // (The old code: 21 after every one of the six windows.)
        assertThat(highest).as("grown from %d after a capacity step from 20 to 80", before).isGreaterThan(35);
    }
}
