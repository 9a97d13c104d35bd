package dev.bulwark.redis.internal.lease;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Subscription;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.util.Arguments;
import dev.bulwark.redis.RedisBulkheadException;
import dev.bulwark.redis.internal.BlockingReply;
import dev.bulwark.redis.internal.BulkheadEngine;
import dev.bulwark.redis.internal.ClusterAdaptiveLimit;
import dev.bulwark.redis.internal.ClusterLimits;
import dev.bulwark.redis.internal.ClusterSettings;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * The leased mode of the cluster-wide bulkhead: this instance admits its calls in-process, through a core
 * bulkhead whose limit is the block of the fleet's limit it leases from Redis ({@link LocalBlock}), renewed and
 * re-divided on a jittered period ({@link BlockRenewer}, {@link LeaseScripts}). A call never touches Redis.
 *
 * <p>Weights other than 1 are refused with {@link IllegalArgumentException} (a block may be smaller than a weight
 * for a while, which the core would refuse or keep waiting for). Every refusal reaches the caller, the overflow
 * handler and the listeners through {@link LeasedRejections}, so it reports the block and the calls in flight
 * without the slot the instance reserves. Thread-safe.
 */
public final class LeasedBulkhead implements BulkheadEngine {

    private final String name;
    private final LocalBlock block;
    private final LeasedRejections rejections;
    private final LeaseStore store;
    private final BlockRenewer renewer;
    private final long commandTimeoutNanos;
    private volatile boolean closed;

    private LeasedBulkhead(ClusterSettings settings, Duration renewalPeriod, LeaseStore store,
                           AutoCloseable connection) {
        this.name = settings.name();
        this.store = store;
        this.commandTimeoutNanos = settings.commandTimeout().toNanos();
        // Every refusal leaves through this translation (the reserved slot taken out); block is read only once set.
        this.rejections = new LeasedRejections(this::reservedHeld, this::releasingReservedHere);
        ClusterLimits limits = settings.initialLimits();
        Bulkhead.Builder local = Bulkhead.builder().name(name).maxConcurrency(1).maxQueue(limits.maxQueue())
                .ticker(settings.ticker()).scheduler(settings.scheduler());
        if (limits.maxWaitNanos() > 0) {
            local.maxWait(Duration.ofNanos(limits.maxWaitNanos()));
        }
        if (settings.rejectionHandler() != null) {
            local.onRejected(rejections.handler(settings.rejectionHandler()));
        }
        Bulkhead core = local.build();
        this.block = new LocalBlock(core);
        // Attached after the reserved slot was taken, so listeners never see it admitted.
        settings.listeners().forEach(listener -> core.addListener(rejections.listener(listener)));
        this.renewer = new BlockRenewer(store, block, UUID.randomUUID().toString(), name,
                limits.maxConcurrency(), settings.failureMode(), settings.ticker(), settings.scheduler(),
                settings.executor(), renewalPeriod.toNanos(), commandTimeoutNanos, () -> closed,
                () -> closeQuietly(connection));
    }

    /**
     * Starts an instance on an open connection: makes its first renewal (so it starts with its grant) and starts
     * the renewal chain.
     *
     * @param settings the checked settings
     * @param renewalPeriod the renewal period
     * @param commands the connection's scripting commands
     * @param connection closes the connection, once the instance has drained and left the fleet
     * @return the started instance
     * @throws RedisBulkheadException when the first renewal fails or times out (the connection is closed)
     */
    public static LeasedBulkhead start(ClusterSettings settings, Duration renewalPeriod,
                                       RedisScriptingAsyncCommands<String, String> commands,
                                       AutoCloseable connection) {
        LeasedBulkhead bulkhead = new LeasedBulkhead(settings, renewalPeriod,
                new LeaseStore(commands, settings.name()), connection);
        try {
            bulkhead.renewer.start();
        } catch (ExecutionException failure) {
            closeQuietly(connection);
            throw new RedisBulkheadException(settings.name(), "connect", failure.getCause());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            closeQuietly(connection);
            throw new RedisBulkheadException(settings.name(), "connect", interrupted);
        }
        return bulkhead;
    }

    private static void closeQuietly(AutoCloseable connection) {
        try {
            connection.close();
        } catch (Exception ignored) {
            // Best effort: the connection is not used again either way.
        }
    }

    /** Read by {@link #rejections}, at refusals only, which the core makes only once {@link #block} is set. */
    private boolean reservedHeld() {
        return block.reservedHeld();
    }

    /** Read by {@link #rejections}' listeners at releases, which the core makes only once {@link #block} is set. */
    private boolean releasingReservedHere() {
        return block.releasingReservedHere();
    }

    private static CallOptions weightOne(CallOptions options) {
        Objects.requireNonNull(options, "options");
        if (options.weight() != 1) {
            throw new IllegalArgumentException("weight must be 1 in the leased mode but was " + options.weight());
        }
        return options;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Calls: the core bulkhead's, within the block

    // A refusal thrown or failing a future is translated (LeasedRejections); an operation's own exception, even a
    // BulkheadRejectedException of another bulkhead, passes untouched: the core refuses only before it starts it.

    @Override
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Started started = new Started();
        try {
            return block.core().call(started.track(operation), signal);
        } catch (BulkheadRejectedException refused) {
            throw started.value ? refused : rejections.translate(refused);
        }
    }

    @Override
    public <T, X extends Throwable> T call(CallOptions options, ThrowingSupplier<? extends T, X> operation)
            throws X {
        Started started = new Started();
        try {
            return block.core().call(weightOne(options), started.track(operation));
        } catch (BulkheadRejectedException refused) {
            throw started.value ? refused : rejections.translate(refused);
        }
    }

    @Override
    public Permit acquire(CancellationSignal signal) {
        try {
            return block.core().acquire(signal);
        } catch (BulkheadRejectedException refused) {
            throw rejections.translate(refused);
        }
    }

    @Override
    public Permit acquire(CallOptions options) {
        try {
            return block.core().acquireWith(weightOne(options));
        } catch (BulkheadRejectedException refused) {
            throw rejections.translate(refused);
        }
    }

    @Override
    public Optional<Permit> tryAcquire() {
        return block.core().tryAcquire();
    }

    @Override
    public Optional<Permit> tryAcquire(CallOptions options) {
        return block.core().tryAcquireWith(weightOne(options));
    }

    @Override
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Started started = new Started();
        return rejections.translate(block.core().callAsync(started.track(operation), signal),
                started::notYet, false);
    }

    @Override
    public <T> CompletableFuture<T> callAsync(CallOptions options, Supplier<? extends CompletionStage<T>> operation) {
        Started started = new Started();
        return rejections.translate(block.core().callAsync(weightOne(options), started.track(operation)),
                started::notYet, false);
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        return rejections.translate(block.core().acquireAsync(signal), () -> true, true);
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(CallOptions options) {
        return rejections.translate(block.core().acquireAsyncWith(weightOne(options)), () -> true, true);
    }

    /**
     * Whether the core started a call's operation: set on the thread that starts it, before it runs, and read after
     * the call ended (its stage's completion orders the write before the read).
     */
    private static final class Started {

        volatile boolean value;

        boolean notYet() {
            return !value;
        }

        <T, X extends Throwable> ThrowingSupplier<T, X> track(ThrowingSupplier<? extends T, X> operation) {
            return () -> {
                value = true;
                return operation.get();
            };
        }

        <T> Supplier<CompletionStage<T>> track(Supplier<? extends CompletionStage<T>> operation) {
            return () -> {
                value = true;
                return operation.get();
            };
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Limits, counts, life cycle

    @Override
    public Subscription addListener(BulkheadListener listener) {
        return block.core().addListener(rejections.listener(Objects.requireNonNull(listener, "listener")));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ClusterAdaptiveLimit adaptiveLimit() {
        return null;
    }

    /** The fleet's limit as the last renewal saw it, and this instance's own queue limit and maximum wait. */
    @Override
    public ClusterLimits limits() {
        Bulkhead core = block.core();
        return new ClusterLimits(renewer.fleetLimit(), core.maxQueue(),
                Arguments.boundedNanos(core.maxWait().orElse(null)));
    }

    /**
     * One round trip: {executing, queued} summed over the live instances as each last reported them (at most about
     * one renewal period old).
     */
    @Override
    public int[] clusterCounts(String operation) {
        long[] counts = await(operation, store.counts(commandTimeoutNanos));
        return new int[] {(int) counts[1], (int) counts[2]};
    }

    /**
     * {@code maxConcurrency}: sets the fleet's limit in Redis (one round trip), which every instance re-divides at
     * its next renewals. {@code maxQueue} and {@code maxWaitNanos}: this instance's own queue.
     */
    @Override
    public void configure(String operation, String field, String value) {
        switch (field) {
            case "maxConcurrency" -> await(operation, store.setLimit(Integer.parseInt(value), commandTimeoutNanos));
            case "maxQueue" -> block.core().changeMaxQueue(Integer.parseInt(value));
            case "maxWaitNanos" -> {
                long nanos = Long.parseLong(value);
                block.core().changeMaxWait(nanos == 0 ? null : Duration.ofNanos(nanos));
            }
            default -> throw new IllegalArgumentException("unknown limit " + field);
        }
    }

    private long[] await(String operation, CompletableFuture<long[]> reply) {
        if (renewer.left()) {
            throw new RedisBulkheadException(name, operation, new IllegalStateException(
                    "the bulkhead is closed and this instance's connection to Redis is shut"));
        }
        return BlockingReply.await(name, operation, reply);
    }

    @Override
    public int localExecutingCount() {
        return block.inFlight();
    }

    @Override
    public int localQueuedCount() {
        return block.queued();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /**
     * Refuses the queued calls (reason {@code CLOSED}) and stops admitting, gives back the reserved slot (the core
     * is closed, so nobody can take it), waits up to {@code deadlineNanos} for the running calls; the next renewal
     * once none runs deletes this instance's record in Redis (its block returns to the fleet) and closes the
     * connection.
     */
    @Override
    public DrainResult drain(long deadlineNanos) {
        closed = true;
        Bulkhead core = block.core();
        DrainResult refusing = core.drain(Duration.ZERO);
        block.releaseReserved();
        DrainResult waiting = core.drain(Duration.ofNanos(deadlineNanos));
        return new DrainResult(name, refusing.refusedWaiters() + waiting.refusedWaiters(), block.inFlight(),
                waiting.waited());
    }

    @Override
    public void close() {
        drain(0);
    }

    /** The renewal chain, for this package's tests. */
    BlockRenewer renewer() {
        return renewer;
    }

    /** The local block, for this package's tests. */
    LocalBlock localBlock() {
        return block;
    }

    @Override
    public String toString() {
        return "RedisBulkhead[" + name + " (leased): this instance's block " + block.limit() + ", executing "
                + block.inFlight() + ", queued " + block.queued() + "; fleet limit " + renewer.fleetLimit() + "]";
    }
}
