package dev.bulwark.cli.internal.sim;

import java.time.Duration;
import java.util.Optional;

/**
 * The bulkhead under test: its limits, as given to {@link dev.bulwark.Bulkhead.Builder}. Immutable.
 *
 * @param limit {@code maxConcurrency}, at least 1
 * @param queue {@code maxQueue}, at least 0
 * @param maxWait {@code maxWait}, positive, or {@code null} for waits without a time bound
 */
public record BulkheadSettings(int limit, int queue, Duration maxWait) {

    /**
     * Checks the limits.
     *
     * @throws IllegalArgumentException when {@code limit} is less than 1, {@code queue} is negative or
     *     {@code maxWait} is zero or negative
     */
    public BulkheadSettings {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1 but was " + limit);
        }
        if (queue < 0) {
            throw new IllegalArgumentException("queue must not be negative but was " + queue);
        }
        if (maxWait != null && (maxWait.isZero() || maxWait.isNegative())) {
            throw new IllegalArgumentException("maxWait must be positive but was " + maxWait);
        }
    }

    /**
     * Returns the maximum wait.
     *
     * @return the maximum wait, or empty when waits have no time bound
     */
    public Optional<Duration> maxWaitIfBounded() {
        return Optional.ofNullable(maxWait);
    }

    /**
     * Describes the settings for reports.
     *
     * @return for example {@code limit 32, queue 64, max wait 100ms}
     */
    public String describe() {
        return "limit " + limit + ", queue " + queue + ", max wait "
                + (maxWait == null ? "unbounded" : Durations.format(maxWait));
    }
}
