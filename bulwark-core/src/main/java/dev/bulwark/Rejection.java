package dev.bulwark;

import java.time.Duration;
import java.util.Objects;

/**
 * Why and in what state a bulkhead refused a call: the value handed to the overflow handler
 * ({@link Bulkhead.Builder#onRejected}) and carried by {@link BulkheadRejectedException}.
 *
 * <p>The counts are those the bulkhead saw at the moment it decided to refuse. Immutable and thread-safe;
 * serializable, so that a {@link BulkheadRejectedException} keeps its facts when it is serialized.
 *
 * @param bulkheadName the name of the bulkhead that refused the call
 * @param reason why it refused
 * @param maxConcurrency the concurrency limit in force at that moment
 * @param maxQueue the queue limit in force at that moment
 * @param executingCount how many slots were in use at that moment: a call of {@linkplain CallOptions#weight()
 *     weight} n holds n, so this counts slots, not calls ({@link Reason#PARTITION_LIMIT}: the partitions in use)
 * @param queuedCount how many calls were waiting at that moment, each counting 1 whatever its weight, as
 *     {@code maxQueue} counts them (not counting the refused one)
 * @param waited how long the refused call waited: {@link Duration#ZERO} for {@link Reason#QUEUE_FULL}
 * @param priority the refused call's priority (for {@link Reason#EVICTED}: the evicted call's);
 *     {@link Priority#NORMAL} for a call that gave none
 */
public record Rejection(String bulkheadName, Reason reason, int maxConcurrency, int maxQueue, int executingCount,
                        int queuedCount, Duration waited, Priority priority) implements java.io.Serializable {

    /**
     * Checks the components.
     *
     * @throws NullPointerException when {@code bulkheadName}, {@code reason}, {@code waited} or {@code priority}
     *     is {@code null}
     * @throws IllegalArgumentException when a count or limit is negative, or {@code waited} is negative
     */
    public Rejection {
        Objects.requireNonNull(bulkheadName, "bulkheadName");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(waited, "waited");
        Objects.requireNonNull(priority, "priority");
        requireNonNegative(maxConcurrency, "maxConcurrency");
        requireNonNegative(maxQueue, "maxQueue");
        requireNonNegative(executingCount, "executingCount");
        requireNonNegative(queuedCount, "queuedCount");
        if (waited.isNegative()) {
            throw new IllegalArgumentException("waited must not be negative but was " + waited);
        }
    }

    /**
     * Makes the rejection of a call of {@link Priority#NORMAL} priority: the shape this record had before
     * priorities, kept so that code building a {@code Rejection} still compiles.
     *
     * @param bulkheadName the name of the bulkhead that refused the call
     * @param reason why it refused
     * @param maxConcurrency the concurrency limit in force at that moment
     * @param maxQueue the queue limit in force at that moment
     * @param executingCount how many slots were in use at that moment (a call of weight n holds n)
     * @param queuedCount how many calls were waiting at that moment (not counting the refused one)
     * @param waited how long the refused call waited
     * @throws NullPointerException when {@code bulkheadName}, {@code reason} or {@code waited} is {@code null}
     * @throws IllegalArgumentException when a count or limit is negative, or {@code waited} is negative
     */
    public Rejection(String bulkheadName, Reason reason, int maxConcurrency, int maxQueue, int executingCount,
                     int queuedCount, Duration waited) {
        this(bulkheadName, reason, maxConcurrency, maxQueue, executingCount, queuedCount, waited, Priority.NORMAL);
    }

    private static void requireNonNegative(int value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative but was " + value);
        }
    }

    /** Why a bulkhead refused a call. */
    public enum Reason {
        /** No slot was free and the queue was full (always the case with a queue limit of 0). */
        QUEUE_FULL,
        /** The call waited in the queue for the maximum wait without getting a slot. */
        WAIT_TIMEOUT,
        /**
         * The bulkhead could not decide because the store that holds its state (for a cluster-wide bulkhead) was
         * unreachable, and it is configured to fail closed. Never produced by the in-process bulkhead.
         */
        UNAVAILABLE,
        /**
         * A newer call arrived while the queue was full and took this waiting call's place: one of a higher
         * {@link Priority}, or (with {@link QueueOrder#LIFO}) a newer call of the same priority when nobody of a lower
         * priority waits. {@link Rejection#waited()} tells how
         * long it had waited, {@link Rejection#priority()} the evicted call's priority.
         */
        EVICTED,
        /**
         * A {@link PartitionedBulkhead} already holds its maximum number of partitions, so a call for a new key
         * could not get one. {@link Rejection#executingCount()} then counts the partitions in use and
         * {@link Rejection#maxConcurrency()} is the partition limit.
         */
        PARTITION_LIMIT,
        /**
         * The bulkhead was closed or is draining ({@link Bulkhead#close()}, {@link Bulkhead#drain(Duration)}): a
         * new call is refused at once, and a call that was waiting in the queue is refused without running.
         */
        CLOSED,
        /**
         * The concurrency limit was lowered below the weight of a waiting call ({@link CallOptions#weight()}), so
         * the call could never get its slots. A call whose weight already exceeds the limit when it arrives is
         * not rejected this way: it fails at once with an {@link IllegalArgumentException} naming {@code weight}.
         */
        WEIGHT_EXCEEDS_LIMIT
    }
}
