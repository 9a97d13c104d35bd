package dev.bulwark.cli.internal.sim;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.QueueOrder;
import java.time.Duration;
import java.util.Optional;

/**
 * The bulkhead under test: its limits, as given to {@link dev.bulwark.Bulkhead.Builder}. Immutable.
 *
 * @param limit {@code maxConcurrency}, at least 1 (the starting limit when adaptive)
 * @param queue {@code maxQueue}, at least 0
 * @param maxWait {@code maxWait}, positive, or {@code null} for waits without a time bound
 * @param queueOrder the order in which waiters get slots
 * @param adaptive the adaptive limit, or {@code null} for a fixed one
 */
public record BulkheadSettings(int limit, int queue, Duration maxWait, QueueOrder queueOrder,
                               AdaptiveLimit adaptive) {

    /**
     * Fixed limits, FIFO order.
     *
     * @param limit {@code maxConcurrency}
     * @param queue {@code maxQueue}
     * @param maxWait {@code maxWait} or {@code null}
     */
    public BulkheadSettings(int limit, int queue, Duration maxWait) {
        this(limit, queue, maxWait, QueueOrder.FIFO, null);
    }

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
        java.util.Objects.requireNonNull(queueOrder, "queueOrder");
        if (adaptive != null && (limit < adaptive.minLimit() || limit > adaptive.maxLimit())) {
            throw new IllegalArgumentException("limit " + limit + " must lie within the adaptive range ["
                    + adaptive.minLimit() + ", " + adaptive.maxLimit() + "]");
        }
    }

    /**
     * Returns the adaptive limit.
     *
     * @return the adaptive limit, or empty for a fixed limit
     */
    public Optional<AdaptiveLimit> adaptiveIfAny() {
        return Optional.ofNullable(adaptive);
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
     * Names the adaptive algorithm as {@code --adaptive} spells it.
     *
     * @return {@code self-tuning}, {@code aimd} or {@code gradient}, or empty for a fixed limit
     */
    public Optional<String> adaptiveAlgorithm() {
        return adaptiveIfAny().map(BulkheadSettings::algorithmName);
    }

    /** The CLI's name of an adaptive limit's algorithm (what {@code --adaptive} takes). */
    static String algorithmName(AdaptiveLimit adaptive) {
        if (adaptive instanceof dev.bulwark.SelfTuningLimit) {
            return "self-tuning";
        }
        return adaptive instanceof AdaptiveLimit.Aimd ? "aimd" : "gradient";
    }

    /**
     * Describes the settings for reports.
     *
     * @return for example {@code limit 32, queue 64, max wait 100ms}; with no queue there is no wait, so no
     *     maximum wait is named ({@code limit 32, queue 0})
     */
    public String describe() {
        return (adaptive == null ? "limit " + limit : "adaptive limit (" + algorithmName(adaptive) + ", "
                + adaptive.minLimit() + ".." + adaptive.maxLimit() + ", starting at " + limit + ")")
                + ", queue " + queue
                + (queueOrder == QueueOrder.LIFO ? " (LIFO)" : "")
                + (queue == 0 ? "" : ", max wait " + (maxWait == null ? "unbounded" : Durations.format(maxWait)));
    }
}
