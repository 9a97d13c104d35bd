package dev.bulwark.spring.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The bulkhead a shedding route admits its requests through: one bulkhead for the whole route, or one partition per
 * key. Both admit with {@code callAsync}, so a waiting request is a queue entry, never a thread, and the slot is held
 * until the stage the admitted work returns completes (the filters complete it when the response is done).
 *
 * <p>Thread-safe.
 */
public sealed interface RouteLimiter {

    /**
     * Admits one request: runs {@code work} once a slot is granted (on the calling thread when one is free at once,
     * otherwise on the thread that frees one) and holds the slot until the stage it returns completes. Inside this
     * call, {@code work} runs on the calling thread only for a slot free at the call; except on a
     * {@link Partitioned} route, whose bulkhead also runs it there when the grant of a request that has just joined
     * a queue lands before the bulkhead looks at that wait's outcome (it registers for the outcome after starting
     * the wait).
     *
     * @param key the request's partition key (ignored by an unkeyed route)
     * @param priority the request's priority: its place in the queue, and whom it may evict from a full one
     * @param work told of the grant; returns the stage that completes when the request is done
     * @param signal cancels the wait
     * @return completes exceptionally with {@link dev.bulwark.BulkheadRejectedException} on refusal, or with a
     *     {@link java.util.concurrent.CancellationException} when {@code signal} cancelled the wait
     * @throws IllegalArgumentException when a keyed route is given a priority other than {@code NORMAL}
     *     ({@link PartitionedBulkhead} admits at {@code NORMAL} only; the configuration refuses such a route)
     */
    CompletableFuture<Void> admit(String key, Priority priority, Supplier<? extends CompletionStage<Void>> work,
                                  CancellationSignal signal);

    /**
     * Returns the name of the bulkhead (for a keyed route: of the partitioned bulkhead).
     *
     * @return the name
     */
    String name();

    /**
     * Returns the maximum wait a request of this key gets in the queue.
     *
     * @param key the request's key
     * @return the maximum wait, or empty when waits are unbounded
     */
    Optional<Duration> maxWait(String key);

    /**
     * Describes a wait that the servlet container ended (its async timeout) as the bulkhead would have, so that
     * it answers like the bulkhead's own {@code WAIT_TIMEOUT}.
     *
     * @param key the request's key
     * @param priority the request's priority
     * @param waited how long the request waited
     * @return the rejection, with the bulkhead's counts now
     */
    Rejection timedOut(String key, Priority priority, Duration waited);

    /** Every request of the route through one bulkhead. */
    record Single(Bulkhead bulkhead) implements RouteLimiter {

        /** Checks the bulkhead. */
        public Single {
            Objects.requireNonNull(bulkhead, "bulkhead");
        }

        @Override
        public CompletableFuture<Void> admit(String key, Priority priority,
                                             Supplier<? extends CompletionStage<Void>> work,
                                             CancellationSignal signal) {
            if (priority == Priority.NORMAL) {
                return bulkhead.callAsync(work, signal); // the options-free path, unchanged
            }
            return bulkhead.callAsync(CallOptions.builder().priority(priority).signal(signal).build(), work);
        }

        @Override
        public String name() {
            return bulkhead.name();
        }

        @Override
        public Optional<Duration> maxWait(String key) {
            return bulkhead.maxWait();
        }

        @Override
        public Rejection timedOut(String key, Priority priority, Duration waited) {
            return rejection(bulkhead, priority, waited);
        }
    }

    /**
     * One partition per key, with the settings of the named bulkhead.
     *
     * @param partitions the partitioned bulkhead
     * @param partitionMaxWait the maximum wait of every partition
     */
    record Partitioned(PartitionedBulkhead<String> partitions, Optional<Duration> partitionMaxWait)
            implements RouteLimiter {

        /** Checks the components. */
        public Partitioned {
            Objects.requireNonNull(partitions, "partitions");
            Objects.requireNonNull(partitionMaxWait, "partitionMaxWait");
        }

        @Override
        public CompletableFuture<Void> admit(String key, Priority priority,
                                             Supplier<? extends CompletionStage<Void>> work,
                                             CancellationSignal signal) {
            if (priority != Priority.NORMAL) {
                throw new IllegalArgumentException("priority: a keyed route admits at NORMAL only, but was "
                        + priority);
            }
            return partitions.callAsync(key, work, signal);
        }

        @Override
        public String name() {
            return partitions.name();
        }

        @Override
        public Optional<Duration> maxWait(String key) {
            return partitionMaxWait;
        }

        @Override
        public Rejection timedOut(String key, Priority priority, Duration waited) {
            Optional<Bulkhead> partition = partitions.partition(key);
            if (partition.isPresent()) {
                return rejection(partition.get(), priority, waited);
            }
            return new Rejection(partitions.partitionName(key), Rejection.Reason.WAIT_TIMEOUT, 0, 0, 0, 0,
                    waited, priority);
        }
    }

    private static Rejection rejection(Bulkhead bulkhead, Priority priority, Duration waited) {
        return new Rejection(bulkhead.name(), Rejection.Reason.WAIT_TIMEOUT, bulkhead.maxConcurrency(),
                bulkhead.maxQueue(), bulkhead.executingCount(), bulkhead.queuedCount(), waited, priority);
    }
}
