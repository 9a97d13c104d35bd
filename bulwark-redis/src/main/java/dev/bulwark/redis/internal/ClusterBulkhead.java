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
import dev.bulwark.Ticker;
import dev.bulwark.internal.spi.AsyncOperation;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.redis.FailureMode;
import dev.bulwark.redis.LostPermit;
import dev.bulwark.redis.RedisBulkheadException;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The engine behind {@link dev.bulwark.redis.RedisBulkhead} in the exact mode: the client half of the cluster-wide
 * bulkhead's protocol, whose server half is {@link LuaScripts} (read its notes first) — joining the queue, grants,
 * giving up, releases, lost permits and waiters — with the calls (sync, async, permits), the outcome of each
 * decided waiter, and the instance's life cycle (start, limits, close; see {@link ClusterLifecycle}). A sync call
 * parks in {@link SyncWaiter#await}; an async call is an {@link AsyncWaiter} whose outcome is delivered on the
 * executor; both end through {@link #settle}. Thread-safe.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>One round trip each way, one script per call.</b> An uncontended call sends one {@code acquire} script
 * and, when it ends, a release, which is not waited for. Nothing else is on the hot path. The release goes to the
 * {@link ReleaseOutbox}: if this instance sends its next acquire before the flush that the release triggered
 * (one hand-off to the command connection's event loop, see {@link ReleaseFlusher}), the acquire carries it,
 * released in the same script before anything is decided, so a caller that calls again costs Redis one script
 * per call. A release is still executed before every script this
 * instance sends after it (the outbox's invariant 2), exactly as when it was written to the connection at once.
 *
 * <p><b>Waiting.</b> A call the script queued is a {@link RemoteWaiter} registered under its id <em>before</em> the
 * acquire is sent, because the grant travels on the pub/sub connection and may overtake the acquire's own reply. A
 * release anywhere in the cluster hands the slot to the head of the queue inside the script and publishes the
 * id; {@link GrantSubscriber} finds the waiter, asks Redis to confirm ({@link #confirmHints}: a message is a hint,
 * never a grant) and decides it {@code GRANTED}. The {@link LeaseKeeper}'s poll asks
 * Redis about every waiter at the poll interval, which catches a wake-up lost while the pub/sub connection was
 * down. A sync waiter parks its own thread; an async waiter holds no thread at all.
 *
 * <p><b>Deciding a fate.</b> Grant, cancellation, maximum wait, refusal and failure all race to decide a waiter by
 * one compare-and-set (see {@link RemoteWaiter}); the loser does nothing. A waiter that gave up after it was
 * queued sends a {@code release} for its id, which removes it from the queue or, if a grant won on the server,
 * frees the slot it was just given and hands it on: a slot is never left behind. A waiter that gave up while its
 * acquire was still in flight leaves that release to the acquire's reply handler, so the release is always
 * executed after the acquire.
 *
 * <p><b>Leases.</b> Every permit and waiter carries a lease expiry computed from the server's {@code TIME}. The
 * {@link LeaseKeeper} renews all of this instance's ids in one script per heartbeat. An id that Redis no longer
 * knows is lost: a holder is told through {@link dev.bulwark.redis.RedisBulkheadListener#permitLost}, a waiter is
 * decided {@code UNAVAILABLE}. Since ids are never reused, a lost permit's later release removes nothing.
 *
 * <p><b>Failing fast.</b> A waiter never waits for its lease to learn that Redis is gone: a dropped command
 * connection refuses every waiter at once ({@link #connectionLost}), any command that times out refuses the queued
 * ones ({@link #redisSilent}), and a poll or heartbeat that fails refuses the waiters it carried
 * ({@link #waiterUnavailable}); the lease keeper polls at least every quarter command timeout while calls wait. A
 * refused waiter that was queued sends its release, so a grant Redis makes to it later is handed straight on.
 *
 * <p><b>Weights and priorities.</b> A call's weight travels in its id ({@code #n}) and its priority in the acquire's
 * arguments; the scripts do the counting (see {@link LuaScripts}). Redis removes a waiter that a lowered limit or a
 * higher-priority newcomer displaces and publishes why; {@link #refusedByRedis} decides it. A notice missed on a
 * pub/sub reconnect is caught by the next renew: Redis keeps a tombstone of an evicted id for its lease (renew
 * answers 3), and a waiter heavier than the limit tells its own reason.
 *
 * <p><b>Closing.</b> See {@link ClusterLifecycle}: {@link #closed} is set before the queue is refused and read by
 * every joining waiter after it registered; {@link #running} and {@link #waiters} tell when the instance is idle.
 *
 * <p><b>Unknown outcomes.</b> A script that fails or times out may still have run. Its id joins the
 * {@link Orphans}, which the lease keeper releases until Redis confirms, so a slot taken by an acquire whose reply
 * was lost comes back within one heartbeat rather than one lease.
 *
 * <p><b>Threads.</b> Replies and grant messages arrive on Redis I/O threads, which only flip states, unpark
 * threads, hand work to the executor and write the releases flushed to them ({@link ReleaseFlusher}): no
 * operation, overflow handler or listener of a caller's future runs on an I/O thread, so those may call Redis
 * synchronously without deadlocking the client. A {@code RedisBulkheadListener} is an observer told on the thread
 * that learns the fact, an I/O thread included ({@code permitLost} from a release's reply), which is why its
 * Javadoc requires it to be quick and never to call Redis synchronously.
 */
public final class ClusterBulkhead implements BulkheadEngine {

    final String name;
    final Ticker ticker;
    final ClusterEvents events;
    final String leaseMillis;
    final long leaseNanos;
    final BulkheadKeys keys;
    final ScriptRunner scripts;
    final ConcurrentHashMap<String, RemoteWaiter> waiters = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, RemotePermit> permits = new ConcurrentHashMap<>();
    /** Where the garbage collector puts the trackers of handles collected without a close ({@link #reapLeaked}). */
    private final ReferenceQueue<PermitHandle> leaked = new ReferenceQueue<>();
    /** Keeps the trackers of open handed-out permits reachable, lost ones included, until closed or reaped. */
    private final Set<PermitHandle.Tracker> trackers = ConcurrentHashMap.newKeySet();
    /**
     * Once closed: the ticker reading after which this instance renews nothing it holds and ends what still runs
     * ({@link #endPermit}, cause {@code BULKHEAD_CLOSED}): the latest drain's deadline plus one lease. Written by
     * drains (under the lifecycle's lock), read by the lease keeper's tick.
     */
    volatile long renewUntil;
    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.redis.RedisBulkhead");
    /** The slots of the permits in {@link #permits}: this instance's share of the cluster's slots in use. */
    final AtomicInteger heldSlots = new AtomicInteger();
    /** The acquire script's priority argument per ordinal, made once. */
    private static final String[] PRIORITY_ARGUMENTS = new String[Priority.values().length];

    static {
        for (Priority priority : Priority.values()) {
            PRIORITY_ARGUMENTS[priority.ordinal()] = Integer.toString(priority.ordinal());
        }
    }

    final Orphans orphans = new Orphans();
    /** The adaptive limit, or {@code null} for a limit that only changes by hand. */
    final ClusterAdaptiveLimit adaptive;
    volatile ClusterLimits limits;
    /** Set once by the first drain (or close): from then on nothing new is admitted or queued. */
    volatile boolean closed;
    /**
     * Calls of this instance that hold a permit object not yet closed: backed by Redis, lost, or run without a
     * permit. What a drain waits for. Incremented before the permit is published (and, for a grant, before the
     * waiter leaves {@link #waiters}), decremented once, when the permit is first closed.
     */
    final AtomicInteger running = new AtomicInteger();
    /**
     * Acquires of waiters that joined and whose reply has not been handled yet. A shutdown waits for them too: the
     * reply's handler may send a release (a waiter abandoned while joining), which must reach Redis before the
     * connections close, or the slot or place it frees stays taken for a lease.
     */
    final AtomicInteger acquiresInFlight = new AtomicInteger();
    /** Whether a waiter that Redis cannot decide runs without a permit ({@code FAIL_OPEN}) instead of refused. */
    final boolean failOpen;
    /** How long a permit may be held before the lease keeper ends it ({@link #endPermit}); 0 for no bound. */
    final long maxHoldNanos;
    /** Completed once this instance is closed, waits for nothing and runs nothing: what drains wait for. */
    final CompletableFuture<Void> idle = new CompletableFuture<>();


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
        this.name = settings.name();
        this.ticker = settings.ticker();
        this.events = new ClusterEvents(name, settings.listeners(), settings.redisListeners());
        this.leaseNanos = settings.lease().toNanos();
        this.leaseMillis = Long.toString(Math.max(1, settings.lease().toMillis()));
        this.limits = settings.initialLimits();
        this.failOpen = settings.failureMode() == FailureMode.FAIL_OPEN;
        this.maxHoldNanos = settings.maxHoldTime() == null ? 0 : settings.maxHoldTime().toNanos();
        this.keys = new BulkheadKeys(name);
        this.scripts = new ScriptRunner(commands, keys, () -> limits, settings.scheduler(),
                releaseFlusher, this::releasesSettled,
                settings.commandTimeout().toNanos(), this::redisSilent);
        this.adaptive = settings.adaptiveLimit() == null ? null
                : new ClusterAdaptiveLimit(this, settings.adaptiveLimit(), settings.initialLimits().maxConcurrency());
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

    /** Called once, on the thread that completed {@link #idle}: shut the instance down. */
    private void becameIdle() {
        // Often on a Redis I/O thread (a release's reply), which must not wait for Redis.
        dispatch(lifecycle::shutdown);
    }

    @Override
    public String toString() {
        ClusterLimits current = limits;
        return "RedisBulkhead[" + name + ": this instance executing " + permits.size() + ", queued "
                + waiters.size() + "; cluster limits " + current.maxConcurrency() + "/" + current.maxQueue() + "]";
    }

    // ---------------------------------------------------------------------------------------------------------
    // The protocol's client half: joining, grants, giving up, releases, lost permits and waiters

    /**
     * Registers the waiter, then sends its acquire; the reply decides or queues it. A waiter that finds the
     * bulkhead closed once registered sends nothing and is refused: a drain sets {@link #closed} before it scans
     * {@link #waiters}, and this reads it after registering, so each waiter is either seen by the drain or sees the
     * drain.
     */
    void join(RemoteWaiter waiter, boolean mayQueue) {
        acquiresInFlight.incrementAndGet();
        waiters.put(waiter.id, waiter);
        if (closed) {
            try {
                if (waiter.refuse(rejectionOf(waiter, Rejection.Reason.CLOSED, 0)) != RemoteWaiter.ALREADY_DECIDED) {
                    removeWaiter(waiter);
                    waiter.decided();
                }
            } finally {
                acquireHandled();
            }
            return;
        }
        scripts.run(LuaScripts.ACQUIRE, waiter.id, leaseMillis, mayQueue ? "1" : "0",
                        PRIORITY_ARGUMENTS[waiter.priority.ordinal()])
                .whenComplete((reply, failure) -> {
                    try {
                        onAcquireReply(waiter, reply, failure);
                    } finally {
                        acquireHandled();
                    }
                });
    }

    private void acquireHandled() {
        if (acquiresInFlight.decrementAndGet() == 0 && closed) {
            checkIdle();
        }
    }

    private void onAcquireReply(RemoteWaiter waiter, List<Object> reply, Throwable failure) {
        if (failure != null) {
            // The script may have run and its reply been lost: release the id until Redis confirms.
            orphans.add(waiter.id, ticker.read() + leaseNanos);
            if (waiter.fail(failure, false) != RemoteWaiter.ALREADY_DECIDED) {
                removeUnavailable(waiter);
                waiter.decided();
            }
            return;
        }
        refreshLimits(reply, 3);
        switch (Replies.intAt(reply, 0)) {
            case 1:
                waiter.replyGranted = true;
                if (!grant(waiter, true)) {
                    int status = waiter.status();
                    // Still joining: another granter is handing the permit over, and an abandonment that wins over
                    // it now sends the release itself (RemoteWaiter.replyGranted).
                    if (status != RemoteWaiter.GRANTED && status != RemoteWaiter.JOINING) {
                        // Abandoned while joining: the permit the script just gave is nobody's.
                        release(waiter.id);
                    }
                }
                break;
            case 2:
                if (waiter.markWaiting(limits.maxWaitNanos())) {
                    waiter.nowWaiting();
                } else if (waiter.status() != RemoteWaiter.GRANTED) {
                    // Abandoned while joining (the grant may even have overtaken this reply: release handles both).
                    release(waiter.id);
                }
                break;
            case 3:
                // Redis holds a lower limit than this instance had seen when it checked the weight.
                refusedByRedis(waiter, Rejection.Reason.WEIGHT_EXCEEDS_LIMIT, 0);
                break;
            default:
                if (waiter.refuse(new Rejection(name, Rejection.Reason.QUEUE_FULL, Replies.intAt(reply, 3),
                        Replies.intAt(reply, 4), Replies.intAt(reply, 1), Replies.intAt(reply, 2), Duration.ZERO,
                        waiter.priority)) != RemoteWaiter.ALREADY_DECIDED) {
                    removeWaiter(waiter);
                    waiter.decided();
                }
                break;
        }
    }

    /**
     * Hands the permit that Redis granted under the waiter's id to its owner.
     *
     * @return whether this call decided the waiter; {@code false} when it had already been decided (a duplicate
     *     notification, or the owner gave up first and owns the release)
     */
    boolean grant(RemoteWaiter waiter, boolean onArrival) {
        if (!waiter.isOpen()) {
            return false; // a late duplicate: registering its permit would count a slot nobody holds for a moment
        }
        RemotePermit permit = new RemotePermit(this, waiter.id, waiter.weight, ticker.read(), waiter.leaseRenewedAt);
        // Registered before the decision so the heartbeat never misses it; putIfAbsent keeps a duplicate grant
        // notification from replacing the permit that an earlier one already handed out.
        if (!holdPermit(permit)) {
            return false;
        }
        running.incrementAndGet();
        waiter.permit = permit;
        waiter.grantedOnArrival = onArrival;
        if (waiter.decide(RemoteWaiter.GRANTED) == RemoteWaiter.ALREADY_DECIDED) {
            permit.setFlag(RemotePermit.CLOSED); // nobody's: a heartbeat that saw it must not report it lost
            dropPermit(permit);
            runningEnded();
            return false;
        }
        removeWaiter(waiter);
        waiter.decided();
        return true;
    }

    /**
     * Asks Redis whether the waiters named in a grant message hold their slots, and grants only those it lists as
     * holders. The channel is not the script's alone: any client with the right to {@code PUBLISH} could name a
     * waiter (its id is readable in the queue key), and a message taken for a grant would run a call past the
     * cluster-wide limit. So a message is only a hint, answered by one {@code renew} of just these ids, which
     * Redis runs after the script that published it (it reads the same keys): a real grant is confirmed (1), a
     * forged one finds the call still waiting (2) and changes nothing, an evicted waiter's tombstone (3) refuses
     * it as the eviction notice would have. Anything else, and a renewal that fails, is left to the next poll,
     * which asks again; its {@code renew} extends the leases it names, which only helps their owners. Costs a
     * granted waiter one round trip before it runs.
     */
    void confirmHints(List<RemoteWaiter> hinted) {
        String[] arguments = new String[1 + hinted.size()];
        arguments[0] = leaseMillis;
        for (int i = 0; i < hinted.size(); i++) {
            arguments[1 + i] = hinted.get(i).id;
        }
        scripts.run(LuaScripts.RENEW, arguments).whenComplete((reply, failure) -> {
            if (failure != null) {
                return; // the poll asks again, and refuses the waiters if Redis stays silent
            }
            refreshLimits(reply, 0);
            int maxConcurrency = Replies.intAt(reply, 0);
            for (int i = 0; i < hinted.size(); i++) {
                RemoteWaiter waiter = hinted.get(i);
                long outcome = Replies.longAt(reply, 3 + i);
                if (outcome == 1) {
                    grant(waiter, false);
                } else if (outcome == 3) {
                    refusedByRedis(waiter, Rejection.Reason.EVICTED, 0);
                } else if (outcome == 0 && waiter.weight > maxConcurrency) {
                    // Gone from the queue, and too heavy for the limit Redis holds: a lowered limit refused it.
                    refusedByRedis(waiter, Rejection.Reason.WEIGHT_EXCEEDS_LIMIT, maxConcurrency);
                }
                // Still queued (2): the hint was stale or forged. Unknown (0) otherwise: the poll decides it lost.
            }
        });
    }

    /**
     * Gives up on a waiter (cancellation, interruption, maximum wait) if its fate is still open.
     *
     * @return whether this call decided the fate
     */
    boolean abandon(RemoteWaiter waiter, int outcome) {
        int previous = outcome == RemoteWaiter.TIMED_OUT
                ? (waiter.decideIfWaiting(outcome) ? RemoteWaiter.WAITING : RemoteWaiter.ALREADY_DECIDED)
                : waiter.decide(outcome);
        if (previous == RemoteWaiter.ALREADY_DECIDED) {
            return false;
        }
        if (waiter.owesRelease(previous)) {
            release(waiter.id); // before it leaves the map: its leaving may shut a closed instance down
        }
        removeWaiter(waiter);
        waiter.decided();
        return true;
    }

    /** A waiter's place is gone (Redis forgot it, or it can no longer be renewed before its lease ends). */
    void waiterLost(RemoteWaiter waiter, Throwable cause) {
        if (waiter.fail(cause, true) != RemoteWaiter.ALREADY_DECIDED) {
            removeUnavailable(waiter);
            orphans.add(waiter.id, ticker.read() + leaseNanos);
            waiter.decided();
        }
    }

    /**
     * Redis cannot decide this waiter now (a renewal or poll carrying it failed, or the command connection
     * dropped): refuse it with {@code UNAVAILABLE} at once, whether it waits or is still joining, instead of letting
     * it wait for its lease. A waiter that was queued sends the release of its place (if Redis is gone the release
     * fails and the id becomes an orphan, released once Redis answers again), so a grant that Redis makes to it
     * meanwhile frees the slot again and no permit is ever handed to a caller that nobody backs. A waiter still
     * joining leaves that to its acquire's reply, as for a cancellation.
     */
    void waiterUnavailable(RemoteWaiter waiter, Throwable cause) {
        int previous = waiter.fail(cause, false);
        if (previous == RemoteWaiter.ALREADY_DECIDED) {
            return;
        }
        if (waiter.owesRelease(previous)) {
            release(waiter.id); // before it leaves the map, as in abandon
        }
        removeUnavailable(waiter);
        waiter.decided();
    }

    /**
     * A command got no reply within the command timeout: every queued waiter of this instance is refused at once
     * (a waiter still joining is decided by its own acquire's reply or timeout).
     */
    void redisSilent(Throwable cause) {
        for (RemoteWaiter waiter : waiters.values()) {
            if (waiter.status() == RemoteWaiter.WAITING) {
                waiterUnavailable(waiter, cause);
            }
        }
    }

    /** The command connection dropped: every waiter of this instance is refused at once. */
    void connectionLost(Throwable cause) {
        for (RemoteWaiter waiter : waiters.values()) {
            waiterUnavailable(waiter, cause);
        }
    }

    /**
     * Closes a permit: the first close reports it and sends the release. A permit already lost sends it too: if it
     * was given up because its renewal failed, Redis may still count it until its lease ends, and the release
     * frees that slot as soon as the operation ends; if Redis dropped it, the release removes nothing (ids are
     * never reused).
     */
    void closePermit(RemotePermit permit, boolean reportRelease) {
        if (!permit.setFlag(RemotePermit.CLOSED)) {
            return;
        }
        PermitHandle.Tracker tracker = permit.tracker;
        if (tracker != null) {
            trackers.remove(tracker);
            tracker.clear(); // closed: nothing left for the reaper to do
        }
        dropPermit(permit);
        if (reportRelease) {
            reportReleased(permit.acquiredAt);
        }
        // Sent with this instance's next script or by a flush, whichever comes first (see ReleaseOutbox); a
        // shutdown this may trigger flushes it before its fence.
        scripts.release(permit);
        runningEnded();
    }

    /** The replies to releases of closed permits: an unknown outcome makes an orphan, an unknown id a lost permit. */
    private void releasesSettled(List<RemotePermit> released, List<Object> reply, Throwable failure, int offset) {
        for (int i = 0; i < released.size(); i++) {
            RemotePermit permit = released.get(i);
            if (failure != null) {
                orphans.add(permit.id, ticker.read() + leaseNanos);
            } else if (Replies.longAt(reply, offset + i) == 0) {
                // Redis had already dropped it: the lease ran out while the operation was running.
                permitLost(permit, LostPermit.Cause.UNKNOWN_TO_REDIS, true);
            }
        }
    }

    /**
     * The handle a caller gets for a permit held in Redis, tracked so that a handle collected without a close
     * releases its permit ({@link #reapLeaked}) rather than keep it renewed for the life of the process.
     */
    final Permit handOut(RemotePermit permit) {
        PermitHandle handle = new PermitHandle(permit, leaked);
        trackers.add(permit.tracker);
        return handle;
    }

    /**
     * Releases every permit whose handle the garbage collector found unreachable while the permit was still open
     * (its caller never closed it), and logs each at {@code WARNING} with the bulkhead's name. Called by the lease
     * keeper's tick; a permit already lost is closed the same way, so its call stops counting as running and a
     * drain is not kept waiting for it.
     */
    final void reapLeaked() {
        for (Reference<? extends PermitHandle> collected; (collected = leaked.poll()) != null; ) {
            PermitHandle.Tracker tracker = (PermitHandle.Tracker) collected;
            trackers.remove(tracker);
            RemotePermit permit = tracker.permit;
            if ((permit.flags() & RemotePermit.CLOSED) == 0) {
                LOGGER.log(System.Logger.Level.WARNING, "Bulkhead '" + name + "': permit " + permit.id
                        + " was never closed and is no longer reachable after "
                        + ClusterEvents.duration(ticker.read() - permit.acquiredAt).toMillis()
                        + " ms; releasing it. Close every permit (try-with-resources)");
                closePermit(permit, false);
            }
        }
    }

    /**
     * Ends a permit its caller still holds (the bulkhead closed past its grace, or the permit was held longer
     * than allowed): releases it in Redis now and tells the holder through {@code permitLost} with {@code cause}.
     * The holder's later close changes nothing (this call set {@link RemotePermit#CLOSED}), and the call stops
     * counting as running, so the instance can shut down.
     */
    final void endPermit(RemotePermit permit, LostPermit.Cause cause) {
        if (!permit.setFlag(RemotePermit.CLOSED)) {
            return;
        }
        PermitHandle.Tracker tracker = permit.tracker;
        if (tracker != null) {
            trackers.remove(tracker);
            tracker.clear();
        }
        permitLost(permit, cause, true);
        scripts.release(permit);
        runningEnded();
    }

    /** Registers a permit held in Redis, unless one with its id is registered already. */
    final boolean holdPermit(RemotePermit permit) {
        if (permits.putIfAbsent(permit.id, permit) != null) {
            return false;
        }
        heldSlots.addAndGet(permit.weight);
        return true;
    }

    /** Unregisters a permit (closed or lost); its slots leave this instance's share once. */
    final void dropPermit(RemotePermit permit) {
        if (permits.remove(permit.id, permit)) {
            heldSlots.addAndGet(-permit.weight);
        }
    }

    /**
     * Redis removed this waiter from the queue and published why (its weight exceeds a lowered limit, or a
     * newcomer of a higher priority evicted it): refuse it, with no release to send.
     *
     * @param maxConcurrency the limit Redis held when it decided, or 0 when the limits last seen are that limit
     */
    void refusedByRedis(RemoteWaiter waiter, Rejection.Reason reason, int maxConcurrency) {
        if (waiter.refuse(rejectionOf(waiter, reason, maxConcurrency)) != RemoteWaiter.ALREADY_DECIDED) {
            removeWaiter(waiter);
            waiter.decided();
        }
    }

    /** A refusal decided locally: limits as last seen in Redis, counts of this instance. */
    final Rejection rejection(Rejection.Reason reason, long waitedNanos, Priority priority) {
        return rejection(reason, limits.maxConcurrency(), waitedNanos, priority, waiters.size());
    }

    /**
     * The refusal of a waiter still registered in {@link #waiters}: the refused call is not waiting any more, so it
     * is not in the queued count.
     *
     * @param maxConcurrency the limit Redis held when it decided, or 0 when the limits last seen are that limit
     */
    final Rejection rejectionOf(RemoteWaiter waiter, Rejection.Reason reason, int maxConcurrency) {
        int others = waiters.size() - (waiters.get(waiter.id) == waiter ? 1 : 0);
        return rejection(reason, maxConcurrency > 0 ? maxConcurrency : limits.maxConcurrency(),
                ticker.read() - waiter.enqueuedAt, waiter.priority, Math.max(0, others));
    }

    private Rejection rejection(Rejection.Reason reason, int maxConcurrency, long waitedNanos, Priority priority,
                                int queued) {
        return new Rejection(name, reason, maxConcurrency, limits.maxQueue(), heldSlots.get(), queued,
                reason == Rejection.Reason.QUEUE_FULL ? Duration.ZERO : ClusterEvents.duration(waitedNanos),
                priority);
    }

    /** A call that held a permit closed it. */
    final void runningEnded() {
        if (running.decrementAndGet() == 0 && closed) {
            checkIdle();
        }
    }

    /**
     * Takes a waiter just decided {@code UNAVAILABLE} out of {@link #waiters}. Failing open, its call will run
     * without a permit, so it counts as running first, as a grant's call does: a drain in between must not find the
     * instance idle (and shut it down, reporting it complete) while that call is about to start. The permit made for
     * it ({@link #unbackedPermit}) is counted out when closed.
     */
    private void removeUnavailable(RemoteWaiter waiter) {
        if (runsUnbacked(waiter.failure)) {
            running.incrementAndGet();
        }
        removeWaiter(waiter);
    }

    /**
     * Whether a call that Redis could not decide because of {@code failure} runs without a permit: only when failing
     * open, and never for a corrupt config in Redis ({@link CorruptConfigException}), which is no outage but a wrong
     * limit on every instance: admitting on it would break the cluster-wide limit, so such a call is refused
     * {@code UNAVAILABLE} with the field named in its cause. Every path that decides on a failure asks this, with
     * the failure that decided, so counting a call as running and running it always agree.
     */
    final boolean runsUnbacked(Throwable failure) {
        return failOpen && !CorruptConfigException.isCause(failure);
    }

    /**
     * Makes the permit of a call that runs without one (failing open) and reports it; the caller has counted the
     * call in {@link #running}.
     */
    final Permit unbackedPermit(Throwable cause, Priority priority) {
        events.ranWithoutPermit(cause);
        events.admitted(0, priority);
        return new UnbackedPermit(this, ticker.read());
    }

    /** Unregisters a decided waiter; once closed, the last one to go may leave the instance idle. */
    final void removeWaiter(RemoteWaiter waiter) {
        waiters.remove(waiter.id, waiter);
        if (closed) {
            checkIdle();
        }
    }

    /**
     * Completes {@link #idle} when closed and nothing waits, runs or awaits its acquire's reply. Reads
     * {@link #waiters} before {@link #running}: a grant counts its call as running before its waiter leaves the map,
     * so a call being granted is always seen in one of the two; an acquire in flight checks again once handled.
     */
    final void checkIdle() {
        if (closed && acquiresInFlight.get() == 0 && waiters.isEmpty() && running.get() == 0
                && idle.complete(null)) {
            becameIdle();
        }
    }

    /**
     * Marks a permit lost and tells the listeners, once. A renewal that finds a permit unknown may have been
     * overtaken by the permit's own release, so only the release's reply judges a permit already closed.
     */
    void permitLost(RemotePermit permit, LostPermit.Cause cause, boolean evenIfClosed) {
        if (!evenIfClosed && (permit.flags() & RemotePermit.CLOSED) != 0) {
            return;
        }
        if (permit.setFlag(RemotePermit.LOST)) {
            dropPermit(permit);
            events.permitLost(new LostPermit(name, permit.id, ClusterEvents.duration(ticker.read() - permit.acquiredAt),
                    cause));
        }
    }

    /** Sends a release that nobody waits for; if it fails, the id becomes an orphan. */
    private void release(String id) {
        scripts.run(LuaScripts.RELEASE, id).whenComplete((reply, failure) -> {
            if (failure != null) {
                orphans.add(id, ticker.read() + leaseNanos);
            }
        });
    }

    /**
     * Takes the limits a script reply carries at {@code offset}; replies that carry the cluster-wide slots in use
     * carry them two elements earlier (acquire, counts, configure), which the adaptive limit keeps.
     */
    void refreshLimits(List<Object> reply, int offset) {
        limits = ClusterLimits.parse(reply, offset);
        ClusterAdaptiveLimit limit = adaptive;
        if (limit != null && offset >= 2) {
            limit.sawClusterSlots(Replies.intAt(reply, offset - 2));
        }
    }

    /** How a failed call counts for the adaptive limit: {@code IGNORED} without one. */
    final Permit.Outcome outcomeOf(Throwable failure) {
        ClusterAdaptiveLimit limit = adaptive;
        return limit == null ? Permit.Outcome.IGNORED : limit.classify(failure);
    }

    void reportReleased(long acquiredAt) {
        if (events.wantsTimings()) {
            events.released(ticker.read() - acquiredAt);
        }
    }
}
