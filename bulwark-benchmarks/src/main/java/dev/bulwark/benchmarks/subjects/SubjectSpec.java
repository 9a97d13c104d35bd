package dev.bulwark.benchmarks.subjects;

import java.time.Duration;
import java.util.Objects;

/**
 * How a scenario wants its bulkhead configured, in terms every implementation can honour.
 *
 * <p>{@code queue == 0} means a call that finds no free slot is refused at once. {@code queue > 0} means it waits
 * up to {@code maxWait}; implementations that cannot bound their queue (all but Bulwark) wait without a bound on
 * the number of waiters, which is equivalent as long as a scenario never has more than {@code queue} waiters.
 * Immutable.
 *
 * @param limit how many calls may hold a slot at once, at least 1
 * @param queue how many calls may wait for a slot, at least 0
 * @param maxWait how long a waiting call waits at most; ignored when {@code queue} is 0
 */
public record SubjectSpec(int limit, int queue, Duration maxWait) {

    /** The wait bound of scenarios with a queue: long enough that nobody ever times out during a measurement. */
    public static final Duration LONG_WAIT = Duration.ofSeconds(30);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException when {@code limit} is less than 1, {@code queue} is negative, or
     *     {@code maxWait} is not positive
     * @throws NullPointerException when {@code maxWait} is {@code null}
     */
    public SubjectSpec {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1 but was " + limit);
        }
        if (queue < 0) {
            throw new IllegalArgumentException("queue must not be negative but was " + queue);
        }
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("maxWait must be positive but was " + maxWait);
        }
    }

    /**
     * A bulkhead without a queue: calls beyond the limit are refused at once.
     *
     * @param limit the concurrency limit
     * @return the spec
     */
    public static SubjectSpec refusing(int limit) {
        return new SubjectSpec(limit, 0, LONG_WAIT);
    }

    /**
     * A bulkhead whose calls beyond the limit wait (up to {@link #LONG_WAIT}) in a queue of the given size.
     *
     * @param limit the concurrency limit
     * @param queue the queue limit, at least 1
     * @return the spec
     */
    public static SubjectSpec queueing(int limit, int queue) {
        if (queue < 1) {
            throw new IllegalArgumentException("queue must be at least 1 for a queueing bulkhead but was " + queue);
        }
        return new SubjectSpec(limit, queue, LONG_WAIT);
    }

    /**
     * Returns whether calls that find no free slot wait.
     *
     * @return {@code true} when {@code queue > 0}
     */
    public boolean waits() {
        return queue > 0;
    }
}
