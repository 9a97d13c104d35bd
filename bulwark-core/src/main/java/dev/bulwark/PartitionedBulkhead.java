package dev.bulwark;

import dev.bulwark.internal.util.Arguments;
import dev.bulwark.internal.Names;
import dev.bulwark.internal.partition.FairShares;
import dev.bulwark.internal.partition.KeyPolicy;
import dev.bulwark.internal.partition.Partition;
import dev.bulwark.internal.partition.PartitionDrain;
import dev.bulwark.internal.partition.PartitionEvents;
import dev.bulwark.internal.partition.PartitionTable;
import dev.bulwark.internal.partition.PartitionedCalls;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * One bulkhead per key (per tenant, per customer, per downstream host), created on first use and evicted when
 * idle, optionally under a shared global limit. A noisy tenant fills its own partition and is refused there, while
 * the others keep their slots.
 *
 * <p><b>Partitions.</b> Each key gets a bulkhead configured by {@link Builder#configFor(Function)} (for overrides)
 * or the {@link Builder#defaultConfig(BulkheadConfig) default}, named {@code name[key]} (a key longer than 64
 * characters appears there abbreviated: {@link #partitionName(Object)}). A partition with no call
 * in it (none waiting, none running) for {@link Builder#idleTimeout(Duration)} is evicted; eviction never races a
 * call into two bulkheads for one key. At most {@link Builder#maxPartitions(int)} partitions exist. A call for a
 * new key when all exist evicts one that is idle at that moment, least recently used first, so a flood of one-off
 * keys cannot lock other keys out ({@link Builder#evictIdleWhenFull(boolean)}); only when the partitions it looks at
 * (at most 16) are all in use is it refused with {@link Rejection.Reason#PARTITION_LIMIT}.
 * Whenever the bulkhead is quiet, {@link #partitionCount()} equals the number of partitions that exist, whatever
 * failed or raced before: a {@code configFor} that throws, a key's {@code hashCode} that throws, calls racing an
 * eviction. (While calls create partitions, the count may include creations not finished yet.)
 *
 * <p><b>Global limit.</b> With {@link Builder#globalLimit(Bulkhead)}, a call needs a slot in its key's bulkhead
 * and in the global one. It never holds one while waiting for the other, so there is no deadlock: it waits for its
 * key's slot, takes a global slot if one is free at once, and otherwise gives its key's slot back and waits for a
 * global slot, then takes its key's slot if free at once, and so on. Waits for each follow that bulkhead's queue
 * rules (limit, order, maximum wait); the signal applies to both. That is <em>global FIFO</em>, the default.
 *
 * <p><b>Fair shares.</b> With {@link Builder#fairShares(ToIntFunction)}, the global slots are shared out by weight
 * among the <em>active</em> keys (with a call holding or waiting for a global slot): a key's <em>share</em> is the
 * global limit times its weight over the active keys' total. A call waits for its key's slot, then, holding it,
 * for a global slot: taken at once when nobody waits for one, otherwise from a queue, FIFO within a key, where each
 * freed global slot goes to the waiting key with the fewest global slots per unit of weight. A key may borrow idle
 * share, but gets no slot while a key below its share waits; what it borrowed flows back as its calls finish. The
 * global limit is never exceeded. Details: {@code docs/per-key.md}.
 *
 * <p><b>Watching it.</b> {@link #addListener(BulkheadListener)} hears every partition and the refusals made here
 * (such as {@code PARTITION_LIMIT}); {@link #partitionCount()}, {@link #maxPartitions()},
 * {@link #evictionCount()}, {@link #executingCount()} and {@link #queuedCount()} show how full the table is. The
 * first {@code PARTITION_LIMIT} refusal is logged at WARNING (logger {@code dev.bulwark.partition}), later ones at
 * most once a minute with their count: a full table is what a flood of client-chosen keys looks like.
 *
 * <p><b>Closing.</b> After {@link #drain(Duration)} or {@link #close()} no operation starts: calls are refused with
 * {@link Rejection.Reason#CLOSED} and no partition is created. The global bulkhead is left alone.
 *
 * <p>Thread-safe and lock-free (fair shares take a short lock, only while calls wait for a global slot), and calls
 * for different keys do not contend: partitions live in a {@link java.util.concurrent.ConcurrentHashMap} and a call
 * touches only its own partition (and the global bulkhead if there is one). Idle partitions are swept by the calls
 * themselves (a sweep falls due every half idle timeout, and a call for a new key that finds no place evicts an idle
 * partition, or sweeps with {@link Builder#evictIdleWhenFull(boolean) evictIdleWhenFull(false)}), so there is no
 * background thread and a dropped instance is collected. No lock is held while user code ({@code configFor}, a
 * key's {@code hashCode} and {@code equals}) runs.
 *
 * @param <K> the key type; keys must have proper {@code equals}/{@code hashCode}
 */
public final class PartitionedBulkhead<K> implements AutoCloseable {

    private final String name;
    private final @Nullable Bulkhead global;
    /** The partitions, their count and their eviction (design notes there). */
    private final PartitionTable<K> table;
    /** The sync and async call paths through a partition. */
    private final PartitionedCalls<K> calls;
    /** The fair shares of the global slots, or {@code null} for global FIFO. */
    private final @Nullable FairShares fair;

    private PartitionedBulkhead(Builder<K> builder) {
        this.name = Names.orNext(builder.name, "partitioned");
        this.global = builder.global;
        PartitionEvents events = new PartitionEvents(name);
        Consumer<Rejection> ownRefusals = events.reporting(builder.rejectionHandler);
        this.table = new PartitionTable<>(name, builder.defaultConfig, builder.configFor,
                builder.idleTimeout, builder.maxPartitions, builder.ticker, ownRefusals,
                builder.shareWeight, builder.evictIdleWhenFull, events);
        this.fair = builder.shareWeight == null || builder.global == null ? null
                : new FairShares(table::rejectClosed, builder.global, builder.scheduler, builder.ticker,
                        ownRefusals);
        this.calls = new PartitionedCalls<>(table, builder.global, fair);
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
        Partition partition = table.find(Objects.requireNonNull(key, "key"));
        return partition == null ? Optional.empty() : Optional.of(partition.bulkhead());
    }

    /**
     * Returns the number of partitions that exist now. Whenever the bulkhead is quiet this is exactly the size of
     * {@link #partitions()}; while calls are creating partitions it may include those creations.
     *
     * @return the count
     */
    public int partitionCount() {
        return table.partitionCount();
    }

    /**
     * Returns the most partitions that may exist at once ({@link Builder#maxPartitions(int)}).
     *
     * @return the limit
     */
    public int maxPartitions() {
        return table.maxPartitions();
    }

    /**
     * Returns how many partitions were evicted since this bulkhead was built: idle for the idle timeout, or idle
     * when a new key needed the place. A count that climbs with {@link #partitionCount()} at its maximum means
     * more keys come and go than the table holds (a flood of one-off keys, for example). Exact when quiet.
     *
     * @return the count
     */
    public long evictionCount() {
        return table.evictionCount();
    }

    /**
     * Returns how many calls hold a slot in the partitions now (the sum over the partitions; it walks them).
     *
     * @return the count
     */
    public int executingCount() {
        return table.executingCount();
    }

    /**
     * Returns how many calls wait in the partitions' queues now (the sum over the partitions; it walks them). Calls
     * waiting for a fair global slot are counted by {@link #fairQueuedCount()}.
     *
     * @return the count
     */
    public int queuedCount() {
        return table.queuedCount();
    }

    /**
     * Returns the name the key's partition has, or would have: {@code name[key]}, with the key's text
     * ({@code String.valueOf(key)}) abbreviated when it is longer than 64 characters to its first 48 characters,
     * {@code ...#} and the eight hexadecimal digits of its {@code String.hashCode()} (47 characters when the 48th
     * would cut a surrogate pair), so that a long key is not stored a second time in the name.
     *
     * @param key the key
     * @return the partition's name
     * @throws NullPointerException when {@code key} is {@code null}
     */
    public String partitionName(K key) {
        return table.partitionName(Objects.requireNonNull(key, "key"));
    }

    /**
     * Attaches a listener that hears every partition (those that exist now and those created later, while it is
     * attached) and the refusals this bulkhead makes itself: {@link Rejection.Reason#PARTITION_LIMIT}, {@code CLOSED}
     * after a drain or close, and, under fair shares, the refusals of the wait for a global slot. Each partition's
     * events are its bulkhead's ({@link BulkheadListener}'s contract), with {@link Rejection#bulkheadName()} naming
     * the partition; the global bulkhead's own events go to the global bulkhead's listeners. With a global limit
     * under global FIFO, a call that gave its key's slot back to wait for a global one is admitted by its partition
     * again when it takes the slot back, and is reported each time. The listener is told before the
     * {@link Builder#onRejected(Consumer) overflow handler}; one that throws is logged and changes nothing.
     *
     * <p>Cost: a partition's bulkhead with a listener reads the clock to time its calls. Partitions get the listener
     * when the first one is attached (or when created after that); once the last is detached, partitions created
     * later have none, and those that had one keep an empty forwarder until they are evicted. Thread-safe.
     *
     * @param listener the listener
     * @return detaches it; events already being delivered may still reach it once
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public Subscription addListener(BulkheadListener listener) {
        return table.addListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Returns a snapshot of the partitions by key.
     *
     * @return an immutable map
     */
    public Map<K, Bulkhead> partitions() {
        return table.snapshot();
    }

    /**
     * Returns how many calls wait for a global slot under fair shares now (0 without fair shares).
     *
     * @return the count
     */
    public int fairQueuedCount() {
        return fair == null ? 0 : fair.waitingCount();
    }

    /**
     * Stops admitting, refuses the waiting calls, then waits up to {@code deadline} for the running calls. New
     * calls are refused with {@link Rejection.Reason#CLOSED} (the {@link Builder#onRejected(Consumer) handler} is
     * told), no partition is created; a call waiting for a fair global slot is refused at once, one queued in a
     * partition when it leaves the queue, without running. The global bulkhead is left alone. Idempotent: a later
     * drain refuses nothing more and waits again. Thread-safe; on interrupt it returns early, flag kept.
     *
     * @param deadline how long to wait for running calls; {@link Duration#ZERO} does not wait
     * @return the queued calls this drain refused (those queued in partitions or for a fair global slot when it
     *     closed; 0 for a later drain), the calls still holding a slot when it returned, and how long it waited
     * @throws NullPointerException when {@code deadline} is {@code null}
     * @throws IllegalArgumentException when {@code deadline} is negative
     */
    public DrainResult drain(Duration deadline) {
        Objects.requireNonNull(deadline, "deadline");
        if (deadline.isNegative()) {
            throw new IllegalArgumentException("deadline must not be negative but was " + deadline);
        }
        return PartitionDrain.drain(name, table, fair, deadline);
    }

    /**
     * Same as {@code drain(Duration.ZERO)}: stops admitting and refuses the waiting calls, without waiting for the
     * running ones. Idempotent.
     */
    @Override
    public void close() {
        drain(Duration.ZERO);
    }

    /**
     * Returns whether {@link #close()} or {@link #drain(Duration)} was called.
     *
     * @return {@code true} once closed
     */
    public boolean isClosed() {
        return table.isClosed();
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
     * @throws BulkheadRejectedException when a queue is full, a wait timed out, no partition can be created, or
     *     the bulkhead is closed ({@link Rejection.Reason#CLOSED})
     * @throws IllegalArgumentException when a {@link Builder#fairShares(ToIntFunction) share weight} is below 1
     * @throws java.util.concurrent.CancellationException when cancelled or interrupted while waiting
     * @throws NullPointerException when an argument is {@code null}
     */
    public <T, X extends Throwable> T call(K key, ThrowingSupplier<? extends T, X> operation,
                                           CancellationSignal signal) throws X {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return calls.call(key, operation, signal);
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
     * Runs an asynchronous operation under the key's bulkhead (and the global one). Never blocks; refusals, and a
     * {@link Builder#configFor(Function) configFor} that throws, complete the returned future exceptionally. The
     * slots are held until the operation's own stage completes.
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
        return calls.callAsync(key, operation, signal);
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
        return new KeyPolicy<>(name, calls, Objects.requireNonNull(key, "key"));
    }

    @Override
    public String toString() {
        return "PartitionedBulkhead[" + name + ": " + table
                + (global == null ? "" : (fair == null ? ", global " : ", fair shares of ") + global.name()) + "]";
    }

    /**
     * Configures a {@link PartitionedBulkhead}. Not thread-safe.
     *
     * @param <K> the key type
     */
    public static final class Builder<K> {
        private @Nullable String name; // null: a new partitioned-N at each build
        private BulkheadConfig defaultConfig = Bulkhead.builder().config();
        private @Nullable Function<? super K, @Nullable BulkheadConfig> configFor;
        private @Nullable Bulkhead global;
        private Duration idleTimeout = Duration.ofMinutes(1);
        private int maxPartitions = 10_000;
        private boolean evictIdleWhenFull = true;
        private Ticker ticker = Ticker.system();
        private @Nullable Consumer<? super Rejection> rejectionHandler;
        private @Nullable ToIntFunction<? super K> shareWeight;
        private Scheduler scheduler = Scheduler.shared();

        private Builder() {
        }

        /**
         * Sets the name. Default: a new {@code partitioned-N} for each build.
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
         * runs once per partition creation, on the calling thread, before the partition takes a place under
         * {@link #maxPartitions(int)}: when it throws, the call fails with that exception (the same instance) and
         * no place is used. It is not called for a new key refused because every place is taken.
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
         * Shares the {@link #globalLimit(Bulkhead) global limit}'s slots out by weight among the active keys
         * instead of global FIFO (see the class notes): each key's share is the global limit times its weight over
         * the active keys' total weight; idle share is lent out; while a key below its share waits, no key above it
         * gets a slot. Needs a global limit. The function runs once per partition creation, on the calling thread,
         * like {@link #configFor(Function)}; a weight below 1 fails that call with {@link IllegalArgumentException}
         * naming {@code shareWeight}. Use {@link #fairShares()} for equal shares.
         *
         * @param shareWeight each key's weight, at least 1
         * @return this builder
         * @throws NullPointerException when {@code shareWeight} is {@code null}
         */
        public Builder<K> fairShares(ToIntFunction<? super K> shareWeight) {
            this.shareWeight = Objects.requireNonNull(shareWeight, "shareWeight");
            return this;
        }

        /**
         * Shares the global limit's slots out equally among the active keys: {@code fairShares(key -> 1)}.
         *
         * @return this builder
         */
        public Builder<K> fairShares() {
            return fairShares(key -> 1);
        }

        /**
         * Sets the scheduler that ends a wait for a fair global slot at the global bulkhead's maximum wait (for
         * tests and simulations). Default: {@link Scheduler#shared()}.
         *
         * @param scheduler the scheduler
         * @return this builder
         * @throws NullPointerException when {@code scheduler} is {@code null}
         */
        public Builder<K> scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Sets how long a partition with no call in it is kept. Default: 1 minute. The longest meaningful value is
         * 2<sup>62</sup> nanoseconds (about 146 years); longer ones, up to {@code ChronoUnit.FOREVER.getDuration()},
         * are treated as that: in practice, partitions are then never evicted and a new key beyond
         * {@link #maxPartitions(int)} is always refused.
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
         * Sets what a call for a new key does when {@link #maxPartitions(int)} partitions exist. Default:
         * {@code true}.
         *
         * <p>With {@code true}, it evicts one partition that is idle at that moment (no call in it, none running or
         * queued in its bulkhead), however recently used: the least recently used such partition among the oldest
         * 16 it looks at (a clock with second chances: a partition used since the clock last passed it goes after
         * one that was not). The evicted key loses nothing but its bulkhead's state (an adaptive limit starts over):
         * its next call builds a fresh partition. Only when the partitions looked at are all in use is the call
         * refused with {@link Rejection.Reason#PARTITION_LIMIT}. Finding room or refusing costs the same whatever
         * {@code maxPartitions} is.
         *
         * <p>With {@code false}, only partitions idle for the {@link #idleTimeout(Duration) idle timeout} make room:
         * the call sweeps every partition (its cost grows with their number), and a new key is refused while every
         * partition was used within the idle timeout. That lets one client that sends many keys lock every other new
         * key out for the idle timeout; use it only when the keys are not chosen by clients.
         *
         * @param evictIdleWhenFull whether a new key at the limit evicts an idle partition at once
         * @return this builder
         */
        public Builder<K> evictIdleWhenFull(boolean evictIdleWhenFull) {
            this.evictIdleWhenFull = evictIdleWhenFull;
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
         * Sets the handler told of {@link Rejection.Reason#PARTITION_LIMIT} and {@link Rejection.Reason#CLOSED}
         * refusals and of refusals while waiting for a fair global slot (partitions' own refusals go to their
         * configuration's handler, the global bulkhead's to its own).
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
         * @throws IllegalStateException when {@link #fairShares(ToIntFunction) fair shares} are asked for without a
         *     {@link #globalLimit(Bulkhead) global limit}
         */
        public PartitionedBulkhead<K> build() {
            if (shareWeight != null && global == null) {
                throw new IllegalStateException("fairShares needs a globalLimit to share out");
            }
            return new PartitionedBulkhead<>(this);
        }
    }
}
