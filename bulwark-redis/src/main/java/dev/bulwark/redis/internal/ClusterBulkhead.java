package dev.bulwark.redis.internal;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.spi.AsyncOperation;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.redis.RedisBulkheadException;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The engine behind {@link dev.bulwark.redis.RedisBulkhead}: its calls (sync, async, permits), the outcome of each
 * decided waiter, and the instance's life cycle, on top of the protocol's client half ({@link ClusterProtocol},
 * whose server half is {@link LuaScripts}: read their notes first). Thread-safe.
 *
 * <h2>Design notes</h2>
 *
 * <p>The protocol (one round trip each way, waiting, deciding a fate, leases, unknown outcomes) is
 * {@link ClusterProtocol}'s, which this class extends with the calls' entry points and the instance's life cycle
 * (start, limits, close). A sync call parks in {@link SyncWaiter#await}; an async call is an {@link AsyncWaiter}
 * whose outcome is delivered on the executor; both end through {@link #settle}.
 *
 * <p><b>Threads.</b> Replies and grant messages arrive on Redis I/O threads, which only flip states, unpark
 * threads, hand work to the executor and write the releases flushed to them ({@link ReleaseFlusher}): no
 * operation, overflow handler or listener of a caller's future runs on an I/O thread, so those may call Redis
 * synchronously without deadlocking the client. A {@code RedisBulkheadListener} is an observer told on the thread
 * that learns the fact, an I/O thread included ({@code permitLost} from a release's reply), which is why its
 * Javadoc requires it to be quick and never to call Redis synchronously.
 */
public final class ClusterBulkhead extends ClusterProtocol implements BulkheadEngine {

    private final ClusterSettings settings;
    /** The timer of waits, command timeouts and polls; a blocking waiter under a fake ticker uses it too. */
    final Scheduler scheduler;
    private final Executor executor;
    private final PermitIds ids = new PermitIds();
    private final LeaseKeeper leaseKeeper;
    private final ClusterLifecycle lifecycle;

    /**
     * Creates the engine and starts it: subscribes to grant messages, loads the scripts, reads the cluster-wide
     * limits (initializing them in Redis from {@code settings} when absent) and starts the lease keeper.
     *
     * @param settings the checked settings
     * @param commands the command connection's asynchronous API
     * @param pubSub the pub/sub connection
     * @param connections closes both connections
     * @param releaseFlusher runs the flush of releases that no script of this instance carried (see ReleaseFlusher)
     * @throws RedisBulkheadException when the grant channel cannot be subscribed within the command timeout
     */
    public ClusterBulkhead(ClusterSettings settings, RedisScriptingAsyncCommands<String, String> commands,
                           StatefulRedisPubSubConnection<String, String> pubSub, AutoCloseable connections,
                           ReleaseFlusher releaseFlusher) {
        super(settings, commands, releaseFlusher);
        this.settings = settings;
        this.scheduler = settings.scheduler();
        this.executor = settings.executor();
        this.leaseKeeper = new LeaseKeeper(this, settings.heartbeatInterval().toNanos(),
                settings.pollInterval().toNanos(), settings.commandTimeout().toNanos());
        GrantSubscriber subscriber = new GrantSubscriber(this, keys.channel());
        this.lifecycle = new ClusterLifecycle(this, leaseKeeper, subscriber, connections,
                settings.commandTimeout().toNanos());
        subscriber.subscribe(pubSub, settings.commandTimeout());
        scripts.preload();
        lifecycle.readLimitsOnStart(settings.commandTimeout().toNanos());
        leaseKeeper.start();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sync calls

    /** Runs a sync operation holding a permit of weight 1. */
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        return call(1, Priority.NORMAL, signal, operation);
    }

    /** Runs a sync operation holding a permit of the options' weight. */
    public <T, X extends Throwable> T call(CallOptions options, ThrowingSupplier<? extends T, X> operation)
            throws X {
        Objects.requireNonNull(options, "options");
        return call(options.weight(), options.priority(), options.signal(), operation);
    }

    private <T, X extends Throwable> T call(int weight, Priority priority, CancellationSignal signal,
                                            ThrowingSupplier<? extends T, X> operation) throws X {
        Objects.requireNonNull(operation, "operation");
        Permit permit = acquire(weight, priority, signal);
        Permit.Outcome outcome = Permit.Outcome.SUCCESS;
        try {
            return operation.get();
        } catch (Throwable failure) {
            outcome = outcomeOf(failure); // for the adaptive limit, by its drop predicate
            throw failure;
        } finally {
            permit.close(outcome);
        }
    }

    /** Takes a permit of weight 1, waiting in the cluster-wide queue if needed. */
    public Permit acquire(CancellationSignal signal) {
        return acquire(1, Priority.NORMAL, signal);
    }

    /** Takes a permit of the options' weight, waiting in the cluster-wide queue if needed. */
    public Permit acquire(CallOptions options) {
        Objects.requireNonNull(options, "options");
        return acquire(options.weight(), options.priority(), options.signal());
    }

    private Permit acquire(int weight, Priority priority, CancellationSignal signal) {
        Objects.requireNonNull(signal, "signal");
        requireWeightWithinLimit(weight);
        if (closed) {
            throw reject(rejection(Rejection.Reason.CLOSED, 0, priority), null);
        }
        if (signal.isCancelled()) {
            throw Outcomes.cancelledBeforeStart(name, signal);
        }
        return SyncWaiter.await(this, ids.next(weight), weight, priority, signal);
    }

    /** Takes a permit of weight 1 only if one is free now and nobody waits anywhere in the cluster. */
    public Optional<Permit> tryAcquire() {
        return tryAcquire(1, Priority.NORMAL);
    }

    /** Takes a permit of the options' weight only if its slots are free now and nobody waits. */
    public Optional<Permit> tryAcquire(CallOptions options) {
        Objects.requireNonNull(options, "options");
        requireWeightWithinLimit(options.weight());
        return options.signal().isCancelled() ? Optional.empty() : tryAcquire(options.weight(), options.priority());
    }

    /**
     * Counts the call as running before its acquire is sent (as a joining waiter registers before it reads
     * {@link #closed}), so a drain in between sees it and neither reports itself complete nor closes the
     * connections under the permit Redis is about to grant. Every path without a permit counts it out again.
     */
    private Optional<Permit> tryAcquire(int weight, Priority priority) {
        if (closed) {
            return Optional.empty();
        }
        running.incrementAndGet();
        if (closed) {
            runningEnded();
            return Optional.empty();
        }
        String id = ids.next(weight);
        long startedAt = ticker.read();
        List<Object> reply;
        try {
            reply = scripts.run(LuaScripts.ACQUIRE, id, leaseMillis, "0", "2").get();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            orphans.add(id, ticker.read() + leaseNanos);
            runningEnded();
            return Optional.empty();
        } catch (ExecutionException failure) {
            orphans.add(id, ticker.read() + leaseNanos);
            if (runsUnbacked(failure.getCause())) {
                return Optional.of(unbackedPermit(failure.getCause(), priority)); // counted above
            }
            runningEnded();
            return Optional.empty();
        }
        refreshLimits(reply, 3);
        if (Replies.intAt(reply, 0) != 1) {
            runningEnded();
            return Optional.empty();
        }
        RemotePermit permit = new RemotePermit(this, id, weight, ticker.read(), startedAt);
        holdPermit(permit);
        events.admitted(0, priority);
        return Optional.of(handOut(permit));
    }

    /**
     * A weight above the concurrency limit this instance last saw could never be granted: bad input, refused at
     * once. (If Redis holds a lower limit still, the script refuses it with {@code WEIGHT_EXCEEDS_LIMIT}.)
     */
    private void requireWeightWithinLimit(int weight) {
        int maxConcurrency = limits.maxConcurrency();
        if (weight > maxConcurrency) {
            throw new IllegalArgumentException("weight must not exceed maxConcurrency (" + maxConcurrency
                    + " cluster-wide, as bulkhead '" + name + "' last saw it) but was " + weight);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Async calls

    /** Starts an async operation once a permit of weight 1 is granted; never blocks. */
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        return callAsync(1, Priority.NORMAL, signal, operation);
    }

    /** Starts an async operation once a permit of the options' weight is granted; never blocks. */
    public <T> CompletableFuture<T> callAsync(CallOptions options,
                                              Supplier<? extends CompletionStage<T>> operation) {
        Objects.requireNonNull(options, "options");
        return callAsync(options.weight(), options.priority(), options.signal(), operation);
    }

    private <T> CompletableFuture<T> callAsync(int weight, Priority priority, CancellationSignal signal,
                                               Supplier<? extends CompletionStage<T>> operation) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<T> result = new WaiterFuture<>();
        if (refusedAtOnce(weight, priority, signal, result)) {
            return result;
        }
        AsyncWaiter waiter = new AsyncWaiter(this, ids.next(weight), weight, priority, signal, ticker.read(), result) {
            @Override
            void begin(Permit permit) {
                AsyncOperation.start(operation, result, (ignoredStart, failure) ->
                        permit.close(failure == null ? Permit.Outcome.SUCCESS : outcomeOf(failure)), 0L);
            }
        };
        join(waiter, true);
        waiter.armCancellation();
        return result;
    }

    /** Takes a permit of weight 1 without blocking. */
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        return acquireAsync(1, Priority.NORMAL, signal);
    }

    /** Takes a permit of the options' weight without blocking. */
    public CompletableFuture<Permit> acquireAsync(CallOptions options) {
        Objects.requireNonNull(options, "options");
        return acquireAsync(options.weight(), options.priority(), options.signal());
    }

    private CompletableFuture<Permit> acquireAsync(int weight, Priority priority, CancellationSignal signal) {
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<Permit> future = new WaiterFuture<>();
        if (refusedAtOnce(weight, priority, signal, future)) {
            return future;
        }
        AsyncWaiter waiter = new AsyncWaiter(this, ids.next(weight), weight, priority, signal, ticker.read(), future) {
            @Override
            void begin(Permit permit) {
                if (!future.complete(permit)) {
                    // The caller abandoned the future meanwhile: nobody will ever close this permit.
                    permit.close();
                }
            }
        };
        join(waiter, true);
        waiter.armCancellation();
        return future;
    }

    /**
     * Ends an async call before it joins the queue when its weight exceeds the limit, the bulkhead is closed
     * (refused {@code CLOSED}, the overflow handler on the executor) or its signal is already cancelled.
     */
    private boolean refusedAtOnce(int weight, Priority priority, CancellationSignal signal,
                                  CompletableFuture<?> future) {
        try {
            requireWeightWithinLimit(weight);
        } catch (IllegalArgumentException tooHeavy) {
            future.completeExceptionally(tooHeavy);
            return true;
        }
        if (closed) {
            Rejection rejection = rejection(Rejection.Reason.CLOSED, 0, priority);
            dispatch(() -> {
                try {
                    future.completeExceptionally(reject(rejection, null));
                } catch (RuntimeException handlerFailed) {
                    future.completeExceptionally(handlerFailed);
                }
            });
            return true;
        }
        if (signal.isCancelled()) {
            future.completeExceptionally(Outcomes.cancelledBeforeStart(name, signal));
            return true;
        }
        return false;
    }

    void pollSoon() {
        leaseKeeper.pollSoon();
    }

    /**
     * Runs work that may call user code (or wait for Redis) on the executor, never on a Redis I/O thread; when the
     * executor throws instead (shut down, or any exception or error) on the common pool, so callers still learn
     * their outcome and a granted permit is still closed (here only if that refuses too).
     */
    void dispatch(Runnable work) {
        try {
            executor.execute(work);
        } catch (RuntimeException | Error rejected) {
            try {
                ForkJoinPool.commonPool().execute(work);
            } catch (RejectedExecutionException alsoRejected) {
                work.run();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Outcomes

    /** Reports the refusal, runs the overflow handler on the current thread, and makes the exception. */
    BulkheadRejectedException reject(Rejection rejection, Throwable redisFailure) {
        events.rejected(rejection);
        return Outcomes.reject(rejection, redisFailure, settings.rejectionHandler());
    }

    /**
     * Acts on a decided waiter's fate, for sync and async callers alike: reports it, and returns the permit the call
     * runs with or throws what the caller gets instead.
     *
     * @param gaveUp whether the caller gave up at the same instant (a slot granted then is passed on)
     * @param interrupted whether it gave up by an interrupt of its waiting thread
     */
    @SuppressWarnings("fallthrough")
    Permit settle(RemoteWaiter waiter, boolean gaveUp, boolean interrupted) {
        long waited = ticker.read() - waiter.enqueuedAt;
        switch (waiter.status()) {
            case RemoteWaiter.GRANTED:
                if (!gaveUp) {
                    events.admitted(waiter.grantedOnArrival ? 0 : waited, waiter.priority);
                    return handOut(waiter.permit);
                }
                // Granted at the same instant the caller gave up: pass the slot on instead of running for nobody,
                // and end as a cancellation.
                waiter.permit.closeUnused();
            case RemoteWaiter.CANCELLED:
                events.cancelled(waited, waiter.priority);
                throw interrupted ? Outcomes.interruptedWhileQueued(name)
                        : Outcomes.cancelledWhileQueued(name, waiter.signal);
            case RemoteWaiter.REFUSED:
                throw reject(waiter.refusal, null);
            case RemoteWaiter.TIMED_OUT:
                throw reject(rejection(Rejection.Reason.WAIT_TIMEOUT, waited, waiter.priority), null);
            case RemoteWaiter.UNAVAILABLE:
                if (runsUnbacked(waiter.failure) && gaveUp) {
                    // As a grant to a caller who gave up: nothing runs for nobody; counted out, ends cancelled.
                    runningEnded();
                    events.cancelled(waited, waiter.priority);
                    throw interrupted ? Outcomes.interruptedWhileQueued(name)
                            : Outcomes.cancelledWhileQueued(name, waiter.signal);
                }
                if (runsUnbacked(waiter.failure)) {
                    return unbackedPermit(waiter.failure, waiter.priority); // counted when decided
                }
                throw reject(rejection(Rejection.Reason.UNAVAILABLE, waited, waiter.priority), waiter.failure);
            default:
                throw new IllegalStateException("Undecided waiter " + waiter.id);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Configuration and counts

    /**
     * Attaches a core listener to this instance's events.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     */
    public dev.bulwark.Subscription addListener(dev.bulwark.BulkheadListener listener) {
        return events.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /** The bulkhead's name. */
    public String name() {
        return name;
    }

    /** The adaptive limit, or {@code null} when the limit only changes by hand. */
    public ClusterAdaptiveLimit adaptiveLimit() {
        return adaptive;
    }

    /** The cluster-wide limits as last seen. */
    public ClusterLimits limits() {
        return limits;
    }

    /** One round trip: the cluster-wide counts, {executing, queued}. */
    public int[] clusterCounts(String operation) {
        requireConnected(operation);
        List<Object> reply = await(operation, scripts.run(LuaScripts.COUNTS));
        refreshLimits(reply, 2);
        return new int[] {Replies.intAt(reply, 0), Replies.intAt(reply, 1)};
    }

    /** One round trip: changes one cluster-wide limit. */
    public void configure(String operation, String field, String value) {
        requireConnected(operation);
        refreshLimits(await(operation, scripts.run(LuaScripts.CONFIGURE, field, value)), 2);
    }

    /** Once shut down the connections are closed: say so rather than let the client report a closed connection. */
    private void requireConnected(String operation) {
        if (lifecycle.isShutDown()) {
            throw new RedisBulkheadException(name, operation, new IllegalStateException(
                    "the bulkhead is closed and this instance's connections to Redis are shut"));
        }
    }

    private List<Object> await(String operation, CompletableFuture<List<Object>> reply) {
        return BlockingReply.await(name, operation, reply);
    }

    /** Slots of the permits this instance holds in Redis (not lost, not closed). */
    public int localExecutingCount() {
        return heldSlots.get();
    }

    /** Calls of this instance waiting in the cluster-wide queue (or joining it). */
    public int localQueuedCount() {
        return waiters.size();
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Whether a drain or close began. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Drains this instance: stops admitting, refuses its queued waiters with {@code CLOSED}, waits up to
     * {@code deadlineNanos} for its running calls, and shuts down once nothing runs. See {@link ClusterLifecycle}.
     */
    public DrainResult drain(long deadlineNanos) {
        return lifecycle.drain(deadlineNanos);
    }

    /** {@code drain} without waiting. */
    public void close() {
        lifecycle.drain(0);
    }

    @Override
    void becameIdle() {
        // Often on a Redis I/O thread (a release's reply), which must not wait for Redis.
        dispatch(lifecycle::shutdown);
    }

    @Override
    public String toString() {
        ClusterLimits current = limits;
        return "RedisBulkhead[" + name + ": this instance executing " + permits.size() + ", queued "
                + waiters.size() + "; cluster limits " + current.maxConcurrency() + "/" + current.maxQueue() + "]";
    }
}
