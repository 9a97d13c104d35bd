package dev.bulwark.cli.internal.sim;

import java.time.Duration;

/**
 * The retry in front of the bulkhead: how often a call that was refused or timed out is tried again, and how long
 * it waits first. Immutable.
 *
 * @param maxRetries retries after the first attempt, at least 1
 * @param delay the wait before each retry, positive, or {@code null} to retry at once
 */
public record RetrySettings(int maxRetries, Duration delay) {

    /**
     * Checks the settings.
     *
     * @throws IllegalArgumentException when {@code maxRetries} is less than 1 or {@code delay} is not positive
     */
    public RetrySettings {
        if (maxRetries < 1) {
            throw new IllegalArgumentException("maxRetries must be at least 1 but was " + maxRetries);
        }
        if (delay != null && (delay.isZero() || delay.isNegative())) {
            throw new IllegalArgumentException("delay must be positive but was " + delay);
        }
    }

    /**
     * Describes the settings for reports.
     *
     * @return for example {@code retry up to 2 times, 50ms apart}
     */
    public String describe() {
        return "retry up to " + maxRetries + (maxRetries == 1 ? " time" : " times")
                + (delay == null ? " at once" : ", " + Durations.format(delay) + " apart");
    }
}
