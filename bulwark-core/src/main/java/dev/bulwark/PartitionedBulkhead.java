package dev.bulwark;

import dev.bulwark.internal.spi.Arguments;
import dev.bulwark.internal.Names;
import dev.bulwark.internal.Signals;
import dev.bulwark.internal.Stages;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One bulkhead per key (per tenant, per customer, per downstream host), created on first use and evicted when
 * idle, optionally under a shared global limit. A noisy tenant fills its own partition and is refused there, while
 * the others keep their slots.
 *
 * <p><b>Partitions.</b> Each key gets a bulkhead configured by {@link Builder#configFor(Function)} (for overrides)
 * or the {@link Builder#defaultConfig(BulkheadConfig) default}, named {@code name[key]}. A partition with no call
 * in it (none waiting, none running) for {@link Builder#idleTimeout(Duration)} is evicted; eviction never races a
 * call into two bulkheads for one key. At most {@link Builder#maxPartitions(int)} partitions exist; a call for a
 * new key beyond that (after evicting what is idle) is refused with {@link Rejection.Reason#PARTITION_LIMIT}.
 *
 * <p><b>Global limit.</b> With {@link Builder#globalLimit(Bulkhead)}, a call needs a slot in its key's bulkhead
 * and in the global one. It never holds one while waiting for the other, so there is no deadlock: it waits for its
 * key's slot, takes a global slot if one is free at once, and otherwise gives its key's slot back and waits for a
 * global slot, then takes its key's slot if free at once, and so on. Waits for each follow that bulkhead's queue
 * rules (limit, order, maximum wait); the signal applies to both.
 *
 * <p>Thread-safe, and calls for different keys do not contend: partitions live in a {@link ConcurrentHashMap} and
 * a call touches only its own partition (and the global bulkhead if there is one). Idle partitions are swept by
 * the calls themselves, occasionally, so there is no background thread and a dropped instance is collected.
 *
 * @param <K> the key type; keys must have proper {@code equals}/{@code hashCode}
 */
public final class PartitionedBulkhead<K> {

    private final String name;
    private final BulkheadConfig defaultConfig;
    private final @Nullable Function<? super K, @Nullable BulkheadConfig> configFor;
    private final @Nullable Bulkhead global;
    private final long idleNanos;
    private final int maxPartitions;
    private final Ticker ticker;
    private final @Nullable Consumer<? super Rejection> rejectionHandler;

    private final ConcurrentHashMap<K, Partition> partitions = new ConcurrentHashMap<>();
    /** Partitions created and not yet evicted; bounded by {@link #maxPartitions} with a CAS loop. */
    private final AtomicInteger partitionCount = new AtomicInteger();
    private final ReentrantLock sweepLock = new ReentrantLock();
    private volatile long nextSweepAt;

    private PartitionedBulkhead(Builder<K> builder) {
        this.name = builder.name;
        this.defaultConfig = builder.defaultConfig;
        this.configFor = builder.configFor;
        this.global = builder.global;
        this.idleNanos = Arguments.boundedNanos(builder.idleTimeout);
        this.maxPartitions = builder.maxPartitions;
        this.ticker = builder.ticker;
        this.rejectionHandler = builder.rejectionHandler;
        this.nextSweepAt = ticker.read() + idleNanos;
    }

    /**
     * Starts configuring a partitioned bulkhead. Defaults: each partition as {@link Bulkhead#builder()} (limit 10,
     * no queue), no global limit, idle timeout 1 minute, at most 10 000 partitions.
     *
     * @param <K> the key type
     * @return a new builder
     */
    public static <K> Builder<K> builder() {
        return new Builder<>();
    }

    /**
     * Returns the name; partitions are named {@code name[key]}.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the global bulkhead every call also needs a slot in.
     *
     * @return the global bulkhead, or empty when there is none
     */
    public Optional<Bulkhead> globalLimit() {
        return Optional.ofNullable(global);
    }

    /**
     * Returns the partition of a key, if it exists now (it is not created).
     *
     * @param key the key
     * @return its bulkhead, or empty
     * @throws NullPointerException when {@code key} is {@code null}
     */
    public Optional<Bulkhead> partition(K key) {
        Partition partition = partitions.get(Objects.requireNonNull(key, "key"));
        return partition == null ? Optional.empty() : Optional.of(partition.bulkhead);
    }

    /**
     * Returns the number of partitions that exist now.
     *
     * @return the count
     */
    public int partitionCount() {
        return partitionCount.get();
    }

    /**
     * Returns a snapshot of the partitions by key.
     *
     * @return an immutable map
     */
    public Map<K, Bulkhead> partitions() {
        Map<K, Bulkhead> snapshot = new java.util.LinkedHashMap<>();
        partitions.forEach((key, partition) -> snapshot.put(key, partition.bulkhead));
        return java.util.Collections.unmodifiableMap(snapshot);
    }

    /**
     * Runs {@code operation} under the key's bulkhead (and the global one).
     *
     * @param key the partition key
     * @param operation the operation
     * @param signal lets the caller give up while waiting
     * @param <T> the result type
     * @param <X> the operation's checked exception
     * @return the operation's result
     * @throws X the operation's own exception, untouched
     * @throws BulkheadRejectedException when a queue is full, a wait timed out, or no partition can be created
     * @throws java.util.concurrent.CancellationException when cancelled or interrupted while waiting
     * @throws NullPointerException when an argument is {@code null}
     */
    public <T, X extends Throwable> T call(K key, ThrowingSupplier<? extends T, X> operation,
                                           CancellationSignal signal) throws X {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        Partition partition = enter(key);
        try {
            if (global == null) {
                return partition.bulkhead.call(operation, signal);
            }
            try (Permit permit = acquireBoth(partition.bulkhead, signal)) {
                return operation.get();
            }
        } finally {
            exit(partition);
        }
    }

    /**
     * Runs {@code operation} under the key's bulkhead with no cancellation signal.
     *
     * @param key the partition key
     * @param operation the operation
     * @param <T> the result type
     * @param <X> the operation's checked exception
     * @return the operation's result
     * @throws X the operation's own exception, untouched
     * @see #call(Object, ThrowingSupplier, CancellationSignal)
     */
    public <T, X extends Throwable> T call(K key, ThrowingSupplier<? extends T, X> operation) throws X {
        return call(key, operation, CancellationSignal.none());
    }

    /**
     * Runs {@code operation}, which has no result, under the key's bulkhead.
     *
     * @param key the partition key
     * @param operation the operation
     * @param signal lets the caller give up while waiting
     * @param <X> the operation's checked exception
     * @throws X the operation's own exception, untouched
     * @see #call(Object, ThrowingSupplier, CancellationSignal)
     */
    public <X extends Throwable> void run(K key, ThrowingRunnable<X> operation, CancellationSignal signal) throws X {
        Objects.requireNonNull(operation, "operation");
        call(key, () -> {
            operation.run();
            return null;
        }, signal);
    }

    /**
     * Runs {@code operation}, which has no result, under the key's bulkhead with no cancellation signal.
     *
     * @param key the partition key
     * @param operation the operation
     * @param <X> the operation's checked exception
     * @throws X the operation's own exception, untouched
     */
    public <X extends Throwable> void run(K key, ThrowingRunnable<X> operation) throws X {
        run(key, operation, CancellationSignal.none());
    }

    /**
     * Runs an asynchronous operation under the key's bulkhead (and the global one). Never blocks; refusals complete
     * the returned future. The slots are held until the operation's own stage completes.
     *
     * @param key the partition key
     * @param operation supplies the stage
     * @param signal lets the caller give up while waiting
     * @param <T> the result type
     * @return a new future
     * @throws NullPointerException when an argument is {@code null}
     */
    public <T> CompletableFuture<T> callAsync(K key, Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<T> result = new CompletableFuture<>();
        Partition partition;
        try {
            partition = enter(key);
        } catch (BulkheadRejectedException refused) {
            result.completeExceptionally(refused);
            return result;
        }
        CompletableFuture<Permit> slots = global == null ? partition.bulkhead.acquireAsync(signal)
                : acquireBothAsync(partition.bulkhead, signal);
        // A caller giving up while queued leaves the queue(s).
        result.whenComplete((value, failure) -> slots.cancel(false));
        slots.whenComplete((permit, failure) -> {
            if (failure != null) {
                exit(partition);
                result.completeExceptionally(Stages.unwrap(failure));
                return;
            }
            if (result.isDone()) {
                permit.close();
                exit(partition);
                return;
            }
            Stages.start(operation).whenComplete((value, stageFailure) -> {
                // Release first, then leave the partition: a partition is evicted only once nothing holds a slot.
                permit.close();
                exit(partition);
                if (stageFailure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(Stages.unwrap(stageFailure));
                }
            });
        });
        return result;
    }

    /**
     * Runs an asynchronous operation under the key's bulkhead with no cancellation signal.
     *
     * @param key the partition key
     * @param operation supplies the stage
     * @param <T> the result type
     * @return a new future
     * @see #callAsync(Object, Supplier, CancellationSignal)
     */
    public <T> CompletableFuture<T> callAsync(K key, Supplier<? extends CompletionStage<T>> operation) {
        return callAsync(key, operation, CancellationSignal.none());
    }

    /**
     * Returns a policy that runs every call under one key's partition, to use in a {@link Pipeline}.
     *
     * @param key the partition key
     * @return a policy bound to {@code key}
     * @throws NullPointerException when {@code key} is {@code null}
     */
    public Policy forKey(K key) {
        Objects.requireNonNull(key, "key");
        PartitionedBulkhead<K> owner = this;
        return new Policy() {
            @Override
            public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                   CancellationSignal signal) throws X {
                return owner.call(key, operation, signal);
            }

            @Override
            public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                                      CancellationSignal signal) {
                return owner.callAsync(key, operation, signal);
            }

            @Override
            public String toString() {
                return owner.name + "[" + key + "]";
            }
        };
    }

    // ---------------------------------------------------------------------------------------------------------
    // Two bulkheads, never holding one while waiting for the other

    private Permit acquireBoth(Bulkhead local, CancellationSignal signal) {
        for (;;) {
            Permit localPermit = local.acquire(signal);
            Optional<Permit> globalPermit = global.tryAcquire();
            if (globalPermit.isPresent()) {
                return new Pair(localPermit, globalPermit.get());
            }
            localPermit.close();
            Permit waitedGlobal = global.acquire(signal);
            Optional<Permit> retriedLocal = local.tryAcquire();
            if (retriedLocal.isPresent()) {
                return new Pair(retriedLocal.get(), waitedGlobal);
            }
            waitedGlobal.close();
        }
    }

    private CompletableFuture<Permit> acquireBothAsync(Bulkhead local, CancellationSignal signal) {
        CompletableFuture<Permit> both = new CompletableFuture<>();
        new AsyncPair(local, signal, both).waitForLocal();
        return both;
    }

    /** The asynchronous form of {@link #acquireBoth}; each step starts when the previous wait completes. */
    private final class AsyncPair {
        private final Bulkhead local;
        private final CancellationSignal signal;
        private final CompletableFuture<Permit> both;
        private volatile CompletableFuture<Permit> waiting;

        AsyncPair(Bulkhead local, CancellationSignal signal, CompletableFuture<Permit> both) {
            this.local = local;
            this.signal = signal;
            this.both = both;
            both.whenComplete((permit, failure) -> {
                CompletableFuture<Permit> current = waiting;
                if (current != null) {
                    current.cancel(false);
                }
            });
        }

        void waitForLocal() {
            CompletableFuture<Permit> step = local.acquireAsync(signal);
            waiting = step;
            step.whenComplete((localPermit, failure) -> {
                if (failure != null) {
                    both.completeExceptionally(Stages.unwrap(failure));
                    return;
                }
                Optional<Permit> globalPermit = global.tryAcquire();
                if (globalPermit.isPresent()) {
                    complete(new Pair(localPermit, globalPermit.get()));
                } else {
                    localPermit.close();
                    waitForGlobal();
                }
            });
        }

        private void waitForGlobal() {
            CompletableFuture<Permit> step = global.acquireAsync(signal);
            waiting = step;
            step.whenComplete((globalPermit, failure) -> {
                if (failure != null) {
                    both.completeExceptionally(Stages.unwrap(failure));
                    return;
                }
                Optional<Permit> localPermit = local.tryAcquire();
                if (localPermit.isPresent()) {
                    complete(new Pair(localPermit.get(), globalPermit));
                } else {
                    globalPermit.close();
                    waitForLocal();
                }
            });
        }

        private void complete(Permit pair) {
            if (!both.complete(pair)) {
                pair.close(); // the caller gave up at that very moment
            }
        }
    }

    /** Two permits released together, idempotently (each permit is idempotent). */
    private static final class Pair implements Permit {
        private final Permit local;
        private final Permit global;

        Pair(Permit local, Permit global) {
            this.local = local;
            this.global = global;
        }

        @Override
        public void close() {
            close(Outcome.SUCCESS);
        }

        @Override
        public void close(Outcome outcome) {
            try {
                local.close(outcome);
            } finally {
                global.close(outcome);
            }
        }

        @Override
        public boolean isReleased() {
            return local.isReleased() && global.isReleased();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Partitions: creation, use, eviction

    /**
     * Padding before a partition's hot fields. Calls on different keys write different partitions, every call
     * (the use count twice, the last-use time once); partitions are small and the collector copies objects that
     * are reachable one after the other next to each other, so without padding two keys' partitions share a
     * cache line and their calls contend as if on one bulkhead (unpadded, {@code PerKeyBenchmark} forks measured
     * either 62 or 160 to 200 ns per call, depending on where the collector had put the two partitions).
     * Sixty-four bytes on each side of the hot fields keep them alone on their line. The int fills the gap after
     * the object header, which the JVM would otherwise fill with a subclass field.
     */
    @SuppressWarnings("unused")
    private abstract static class PartitionPaddingBefore {
        int p00;
        long p01, p02, p03, p04, p05, p06, p07, p08;
    }

    /** The fields every call writes; see {@link Partition}. */
    private abstract static class PartitionFields extends PartitionPaddingBefore {
        final Bulkhead bulkhead;
        volatile int users;
        volatile long lastUsed;

        PartitionFields(Bulkhead bulkhead, long now) {
            this.bulkhead = bulkhead;
            this.lastUsed = now;
        }
    }

    /**
     * A key's bulkhead and the number of calls using it.
     *
     * <p>Invariant: {@code users} is the number of calls between {@link #enter} and {@link #exit} for this
     * partition, or -1 once the partition is evicted. Eviction moves it from 0 to -1 by compare-and-set, only when
     * the bulkhead is quiet; a caller moves it up only from a non-negative value. So a call never uses an evicted
     * partition, and a key never has two live partitions: a caller that finds the partition evicted removes it from
     * the map (if still there) and creates the next one.
     */
    @SuppressWarnings("unused")
    private static final class Partition extends PartitionFields {
        private static final VarHandle USERS;

        static {
            try {
                USERS = MethodHandles.lookup().findVarHandle(PartitionFields.class, "users", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Padding after the hot fields: see {@link PartitionPaddingBefore}. */
        long p11, p12, p13, p14, p15, p16, p17, p18;

        Partition(Bulkhead bulkhead, long now) {
            super(bulkhead, now);
        }

        boolean tryEnter() {
            for (;;) {
                int current = users;
                if (current < 0) {
                    return false;
                }
                if (USERS.compareAndSet(this, current, current + 1)) {
                    return true;
                }
            }
        }

        void leave() {
            USERS.getAndAdd(this, -1);
        }

        /** Marks the partition evicted if no call is using it. */
        boolean tryEvict() {
            return USERS.compareAndSet(this, 0, -1);
        }
    }

    private Partition enter(K key) {
        maybeSweep();
        for (;;) {
            Partition partition = partitions.get(key);
            if (partition == null) {
                partition = create(key);
                Partition raced = partitions.putIfAbsent(key, partition);
                if (raced != null) {
                    partitionCount.decrementAndGet();
                    partition = raced;
                }
            }
            if (partition.tryEnter()) {
                return partition;
            }
            partitions.remove(key, partition); // evicted under our feet: make way for a fresh one
        }
    }

    private void exit(Partition partition) {
        partition.lastUsed = ticker.read();
        partition.leave();
    }

    private Partition create(K key) {
        if (!reservePartition()) {
            sweep(true);
            if (!reservePartition()) {
                Rejection rejection = new Rejection(name, Rejection.Reason.PARTITION_LIMIT, maxPartitions, 0,
                        partitionCount.get(), 0, Duration.ZERO);
                BulkheadRejectedException refused = new BulkheadRejectedException(rejection);
                if (rejectionHandler != null) {
                    try {
                        rejectionHandler.accept(rejection);
                    } catch (Throwable handlerFailure) {
                        refused.addSuppressed(handlerFailure);
                    }
                }
                throw refused;
            }
        }
        @Nullable BulkheadConfig config = null;
        if (configFor != null) {
            config = configFor.apply(key);
        }
        if (config == null) {
            config = defaultConfig;
        }
        Bulkhead bulkhead = Bulkhead.of(config.toBuilder().name(name + "[" + key + "]").config());
        return new Partition(bulkhead, ticker.read());
    }

    private boolean reservePartition() {
        for (;;) {
            int current = partitionCount.get();
            if (current >= maxPartitions) {
                return false;
            }
            if (partitionCount.compareAndSet(current, current + 1)) {
                return true;
            }
        }
    }

    /** About one call in 64 checks whether a sweep is due, so the hot path rarely reads the clock. */
    private void maybeSweep() {
        if ((ThreadLocalRandom.current().nextInt() & 63) == 0 && ticker.read() - nextSweepAt >= 0) {
            sweep(false);
        }
    }

    /**
     * Evicts partitions idle for the idle timeout. One sweeper at a time; others skip unless {@code wait}.
     *
     * @param wait whether to wait for a running sweep (a caller that needs room) rather than skip it
     */
    private void sweep(boolean wait) {
        if (wait) {
            sweepLock.lock();
        } else if (!sweepLock.tryLock()) {
            return;
        }
        try {
            long now = ticker.read();
            nextSweepAt = now + Math.max(1L, idleNanos / 2);
            List<K> evictable = new ArrayList<>();
            partitions.forEach((key, partition) -> {
                if (partition.users == 0 && now - partition.lastUsed >= idleNanos
                        && partition.bulkhead.executingCount() == 0 && partition.bulkhead.queuedCount() == 0) {
                    evictable.add(key);
                }
            });
            for (K key : evictable) {
                Partition partition = partitions.get(key);
                // Counts cannot grow while users is 0 (growing needs a caller that entered), so checking them
                // before the CAS is enough.
                if (partition != null && partition.tryEvict()) {
                    if (partitions.remove(key, partition)) {
                        partitionCount.decrementAndGet();
                    }
                }
            }
        } finally {
            sweepLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "PartitionedBulkhead[" + name + ": " + partitionCount.get() + " of " + maxPartitions + " partitions"
                + (global == null ? "" : ", global " + global.name()) + "]";
    }

    /**
     * Configures a {@link PartitionedBulkhead}. Not thread-safe.
     *
     * @param <K> the key type
     */
    public static final class Builder<K> {
        private String name = Names.next("partitioned");
        private BulkheadConfig defaultConfig = Bulkhead.builder().config();
        private @Nullable Function<? super K, @Nullable BulkheadConfig> configFor;
        private @Nullable Bulkhead global;
        private Duration idleTimeout = Duration.ofMinutes(1);
        private int maxPartitions = 10_000;
        private Ticker ticker = Ticker.system();
        private @Nullable Consumer<? super Rejection> rejectionHandler;

        private Builder() {
        }

        /**
         * Sets the name. Default: {@code partitioned-N}.
         *
         * @param name a non-blank name
         * @return this builder
         * @throws NullPointerException when {@code name} is {@code null}
         * @throws IllegalArgumentException when {@code name} is blank
         */
        public Builder<K> name(String name) {
            this.name = Arguments.requireName(name);
            return this;
        }

        /**
         * Sets the configuration of every partition without an override. Its name is replaced by
         * {@code name[key]}.
         *
         * @param config the default partition configuration
         * @return this builder
         * @throws NullPointerException when {@code config} is {@code null}
         */
        public Builder<K> defaultConfig(BulkheadConfig config) {
            this.defaultConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * Sets per-key overrides: the function returns a key's configuration, or {@code null} for the default. It
         * runs once per partition creation, on the calling thread.
         *
         * @param overrides the per-key configuration
         * @return this builder
         * @throws NullPointerException when {@code overrides} is {@code null}
         */
        public Builder<K> configFor(Function<? super K, @Nullable BulkheadConfig> overrides) {
            this.configFor = Objects.requireNonNull(overrides, "overrides");
            return this;
        }

        /**
         * Puts every call under a shared bulkhead too (any implementation, even a cluster-wide one).
         *
         * @param global the shared bulkhead
         * @return this builder
         * @throws NullPointerException when {@code global} is {@code null}
         */
        public Builder<K> globalLimit(Bulkhead global) {
            this.global = Objects.requireNonNull(global, "global");
            return this;
        }

        /**
         * Sets how long a partition with no call in it is kept. Default: 1 minute.
         *
         * @param idleTimeout a positive duration
         * @return this builder
         * @throws NullPointerException when {@code idleTimeout} is {@code null}
         * @throws IllegalArgumentException when {@code idleTimeout} is zero or negative
         */
        public Builder<K> idleTimeout(Duration idleTimeout) {
            this.idleTimeout = Arguments.requirePositive(Objects.requireNonNull(idleTimeout, "idleTimeout"),
                    "idleTimeout");
            return this;
        }

        /**
         * Sets the most partitions that may exist at once. Default: 10 000.
         *
         * @param maxPartitions at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code maxPartitions} is less than 1
         */
        public Builder<K> maxPartitions(int maxPartitions) {
            if (maxPartitions < 1) {
                throw new IllegalArgumentException("maxPartitions must be at least 1 but was " + maxPartitions);
            }
            this.maxPartitions = maxPartitions;
            return this;
        }

        /**
         * Sets the clock for idle times (for tests). Default: {@link Ticker#system()}.
         *
         * @param ticker the ticker
         * @return this builder
         * @throws NullPointerException when {@code ticker} is {@code null}
         */
        public Builder<K> ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Sets the handler told of {@link Rejection.Reason#PARTITION_LIMIT} refusals (partitions' own refusals go
         * to their configuration's handler).
         *
         * @param handler the handler
         * @return this builder
         * @throws NullPointerException when {@code handler} is {@code null}
         */
        public Builder<K> onRejected(Consumer<? super Rejection> handler) {
            this.rejectionHandler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Builds the partitioned bulkhead.
         *
         * @return a new partitioned bulkhead with no partitions yet
         */
        public PartitionedBulkhead<K> build() {
            return new PartitionedBulkhead<>(this);
        }
    }
}
