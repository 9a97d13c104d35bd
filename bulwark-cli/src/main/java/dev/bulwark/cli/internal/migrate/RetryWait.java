package dev.bulwark.cli.internal.migrate;

import java.util.ArrayList;
import java.util.List;

/**
 * A Resilience4j retry's wait between attempts, as its Spring Boot properties make it (the interval function of
 * {@code CommonRetryConfigurationProperties}), and the delays it gives: {@code (long) (previous * multiplier)} from
 * {@code waitDuration} on, each at most {@code exponentialMaxWaitDuration} when that applies, in whole
 * milliseconds. Immutable.
 *
 * @param waitMillis the first wait
 * @param multiplier the backoff multiplier, 1 for a fixed wait
 * @param jitter the randomized-wait factor, 0 for none
 * @param maxMillis the longest wait, or -1 for no bound
 * @param custom whether an {@code intervalBiFunction} class decides the waits (then none of the rest applies)
 */
record RetryWait(long waitMillis, double multiplier, double jitter, long maxMillis, boolean custom) {

    /** Resilience4j's default: 500 ms between attempts. */
    static final RetryWait DEFAULT = new RetryWait(500, 1, 0, -1, false);

    /** Resilience4j's {@code IntervalFunction.DEFAULT_MULTIPLIER}. */
    static final double DEFAULT_MULTIPLIER = 1.5;

    /** Resilience4j's {@code IntervalFunction.DEFAULT_RANDOMIZATION_FACTOR}. */
    static final double DEFAULT_RANDOMIZATION_FACTOR = 0.5;

    /**
     * The waits before each retry, ignoring the randomization: {@code retries} of them.
     *
     * @param retries how many retries follow the first attempt
     * @return the waits in milliseconds
     */
    List<Long> delays(int retries) {
        List<Long> delays = new ArrayList<>();
        long current = waitMillis;
        for (int i = 0; i < retries; i++) {
            delays.add(maxMillis >= 0 ? Math.min(current, maxMillis) : current);
            current = (long) (current * multiplier);
        }
        return delays;
    }

    /**
     * The waits Bulwark's {@code backoff(initial, max)} gives before each retry, ignoring the jitter: {@code initial},
     * then twice as long each time, at most {@code max}.
     */
    static List<Long> doubling(long initial, long max, int retries) {
        List<Long> delays = new ArrayList<>();
        long current = initial;
        for (int i = 0; i < retries; i++) {
            delays.add(Math.min(current, max));
            current = current > max ? current : current * 2;
        }
        return delays;
    }
}
