package dev.bulwark.redis.internal;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import dev.bulwark.redis.FailureMode;
import dev.bulwark.redis.LostPermit;
import dev.bulwark.redis.RedisBulkheadException;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The engine of a cluster-wide bulkhead: the client half of the protocol whose server half is {@link LuaScripts}
 * (read its notes first).
 *
 * <h2>Design notes</h2>
 *
 * <p><b>One round trip each way.</b> An uncontended call sends one {@code acquire} script and, when it ends, one
 * {@code release} script, which is not waited for. Nothing else is on the hot path.
 *
 * <p><b>Waiting.</b> A call the script queued is a {@link RemoteWaiter} registered under its id <em>before</em> the
 * acquire is sent, because the grant travels on the pub/sub connection and may overtake the acquire's own reply. A
 * release anywhere in the cluster hands the slot to the head of the queue inside the script and publishes the
 * id; {@link GrantSubscriber} finds the waiter and decides it {@code GRANTED}. The {@link LeaseKeeper}'s poll asks
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
 * <p><b>Unknown outcomes.</b> A script that fails or times out may still have run. Its id joins the
 * {@link Orphans}, which the lease keeper releases until Redis confirms, so a slot taken by an acquire whose reply
 * was lost comes back within one heartbeat rather than one lease.
 *
 * <p><b>Threads.</b> Replies and grant messages arrive on Redis I/O threads, which only flip states, unpark
 * threads and hand work to the executor: no user code (operations, handlers, listeners of futures) runs on an I/O
 * thread, so a user may call Redis synchronously from any callback without deadlocking the client.
 */
public final class ClusterBulkhead {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.redis.RedisBulkhead");

    private final String name;
    private final Settings settings;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Executor executor;
    private final Events events;
    private final String leaseMillis;
    private final long leaseNanos;
    private final AutoCloseable connections;
    private final BulkheadKeys keys;
    final ScriptRunner scripts;
    private final PermitIds ids = new PermitIds();
    final ConcurrentHashMap<String, RemoteWaiter> waiters = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, RemotePermit> permits = new ConcurrentHashMap<>();
    final Orphans orphans = new Orphans();
    private final LeaseKeeper leaseKeeper;
    private final GrantSubscriber subscriber;
    private volatile ClusterLimits limits;
    private volatile boolean closed;

    /**
     * Creates the engine and starts it: subscribes to grant messages, loads the scripts, reads the cluster-wide
     * limits (initializing them in Redis from {@code settings} when absent) and starts the lease keeper.
     *
     * @param settings the checked settings
     * @param commands the command connection's asynchronous API
     * @param pubSub the pub/sub connection
     * @param connections closes both connections
     * @throws RedisBulkheadException when the grant channel cannot be subscribed within the command timeout
     */
    public ClusterBulkhead(Settings settings, RedisScriptingAsyncCommands<String, String> commands,
                           StatefulRedisPubSubConnection<String, String> pubSub, AutoCloseable connections) {
        this.settings = settings;
        this.name = settings.name();
        this.ticker = settings.ticker();
        this.scheduler = settings.scheduler();
        this.executor = settings.executor();
        this.events = new Events(name, settings.listeners(), settings.redisListeners());
        this.leaseNanos = settings.lease().toNanos();
        this.leaseMillis = Long.toString(Math.max(1, settings.lease().toMillis()));
        this.connections = connections;
        this.limits = settings.initialLimits();
        this.keys = new BulkheadKeys(name);
        this.scripts = new ScriptRunner(commands, keys, () -> limits, scheduler, settings.commandTimeout().toNanos());
        this.leaseKeeper = new LeaseKeeper(this, settings.heartbeatInterval().toNanos(),
                settings.pollInterval().toNanos());
        this.subscriber = new GrantSubscriber(this, keys.channel());
        subscriber.subscribe(pubSub, settings.commandTimeout());
        scripts.preload();
        readLimitsOnStart(settings.commandTimeout().toNanos());
        leaseKeeper.start();
    }

    /**
     * Reads (and, when absent, initializes) the cluster-wide limits, retrying for up to one command timeout: a
     * cluster client rejects the first commands to a node whose connection is still being opened.
     */
    private void readLimitsOnStart(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        for (;;) {
            try {
                refreshLimits(scripts.run(LuaScripts.COUNTS).get(), 2);
                return;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException unavailable) {
                if (System.nanoTime() - deadline >= 0) {
                    LOGGER.log(System.Logger.Level.WARNING, "Bulkhead '" + name + "': could not read the "
                            + "cluster-wide limits yet; using the configured ones until Redis answers",
                            unavailable.getCause());
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sync calls

    /** Runs a sync operation holding a permit. */
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        Permit permit = acquire(signal);
        try {
            return operation.get();
        } finally {
            permit.close();
        }
    }

    /** Takes a permit, waiting in the cluster-wide queue if needed. */
    public Permit acquire(CancellationSignal signal) {
        Objects.requireNonNull(signal, "signal");
        requireOpen();
        if (signal.isCancelled()) {
            throw cancelledBeforeStart(signal);
        }
        SyncWaiter waiter = new SyncWaiter(this, ids.next(), signal, ticker.read());
        join(waiter, true);
        CancellationSignal.Registration registration = signal.canBeCancelled() ? signal.onCancel(waiter) : null;
        // An interrupt while the acquire is in flight is held back: a call admitted at once runs (as in-process),
        // a call that has to queue is cancelled by it.
        boolean interruptPending = false;
        boolean interruptedWhileQueued = false;
        try {
            for (;;) {
                int status = waiter.status;
                if (status == RemoteWaiter.JOINING) {
                    LockSupport.park(this);
                    interruptPending |= Thread.interrupted();
                } else if (status == RemoteWaiter.WAITING) {
                    if (interruptPending || Thread.interrupted()) {
                        interruptPending = false;
                        interruptedWhileQueued = true;
                        abandon(waiter, RemoteWaiter.CANCELLED);
                        continue;
                    }
                    long maxWait = waiter.maxWaitNanos;
                    if (maxWait > 0) {
                        long remaining = waiter.startedAt + maxWait - ticker.read();
                        if (remaining <= 0) {
                            abandon(waiter, RemoteWaiter.TIMED_OUT);
                            continue;
                        }
                        LockSupport.parkNanos(this, remaining);
                    } else {
                        LockSupport.park(this);
                    }
                } else {
                    break;
                }
            }
        } finally {
            if (registration != null) {
                registration.close();
            }
            if (interruptPending || interruptedWhileQueued) {
                Thread.currentThread().interrupt();
            }
        }
        return syncOutcome(waiter, interruptedWhileQueued);
    }

    private Permit syncOutcome(SyncWaiter waiter, boolean interrupted) {
        long waited = ticker.read() - waiter.startedAt;
        switch (waiter.status) {
            case RemoteWaiter.GRANTED:
                if (!interrupted && !waiter.signal.isCancelled()) {
                    events.admitted(waiter.grantedOnArrival ? 0 : waited);
                    return waiter.permit;
                }
                // Granted at the same instant the caller gave up: pass the slot on instead of running for nobody.
                waiter.permit.closeUnused();
                events.cancelled(waited);
                throw interrupted ? interruptedWhileQueued() : cancelledWhileQueued(waiter.signal);
            case RemoteWaiter.REFUSED:
                throw reject(waiter.refusal, null);
            case RemoteWaiter.TIMED_OUT:
                throw reject(rejection(Rejection.Reason.WAIT_TIMEOUT, waited), null);
            case RemoteWaiter.CANCELLED:
                events.cancelled(waited);
                throw interrupted ? interruptedWhileQueued() : cancelledWhileQueued(waiter.signal);
            case RemoteWaiter.UNAVAILABLE:
                if (settings.failureMode() == FailureMode.FAIL_OPEN) {
                    return runWithoutPermit(waiter.failure);
                }
                throw reject(rejection(Rejection.Reason.UNAVAILABLE, waited), waiter.failure);
            default:
                throw new IllegalStateException("Undecided waiter " + waiter.id);
        }
    }

    /** Takes a permit only if one is free now and nobody waits anywhere in the cluster. */
    public Optional<Permit> tryAcquire() {
        if (closed) {
            return Optional.empty();
        }
        String id = ids.next();
        long startedAt = ticker.read();
        List<Object> reply;
        try {
            reply = scripts.run(LuaScripts.ACQUIRE, id, leaseMillis, "0").get();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            orphans.add(id, ticker.read() + leaseNanos);
            return Optional.empty();
        } catch (ExecutionException failure) {
            orphans.add(id, ticker.read() + leaseNanos);
            return settings.failureMode() == FailureMode.FAIL_OPEN
                    ? Optional.of(runWithoutPermit(failure.getCause())) : Optional.empty();
        }
        refreshLimits(reply, 3);
        if (Replies.intAt(reply, 0) != 1) {
            return Optional.empty();
        }
        RemotePermit permit = new RemotePermit(this, id, ticker.read(), startedAt);
        permits.put(id, permit);
        events.admitted(0);
        return Optional.of(permit);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Async calls

    /** Starts an async operation once a permit is granted; never blocks. */
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<T> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(closedException());
        } else if (signal.isCancelled()) {
            result.completeExceptionally(cancelledBeforeStart(signal));
        } else {
            AsyncWaiter waiter = new AsyncWaiter(this, ids.next(), signal, ticker.read(), result) {
                @Override
                void begin(Permit permit) {
                    startAsync(operation, result, permit);
                }
            };
            join(waiter, true);
            waiter.armCancellation();
        }
        return result;
    }

    /** Takes a permit without blocking. */
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<Permit> future = new CompletableFuture<>();
        if (closed) {
            future.completeExceptionally(closedException());
        } else if (signal.isCancelled()) {
            future.completeExceptionally(cancelledBeforeStart(signal));
        } else {
            AsyncWaiter waiter = new AsyncWaiter(this, ids.next(), signal, ticker.read(), future) {
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
        }
        return future;
    }

    /** Delivers an async waiter's fate; runs on the executor once the fate is decided. */
    void finishAsync(AsyncWaiter waiter) {
        long waited = ticker.read() - waiter.startedAt;
        CompletableFuture<?> future = waiter.callerFuture;
        switch (waiter.status) {
            case RemoteWaiter.GRANTED:
                if (waiter.signal.isCancelled() || future.isDone()) {
                    waiter.permit.closeUnused();
                    events.cancelled(waited);
                    future.completeExceptionally(cancelledWhileQueued(waiter.signal));
                } else {
                    events.admitted(waiter.grantedOnArrival ? 0 : waited);
                    waiter.begin(waiter.permit);
                }
                break;
            case RemoteWaiter.REFUSED:
                future.completeExceptionally(reject(waiter.refusal, null));
                break;
            case RemoteWaiter.TIMED_OUT:
                future.completeExceptionally(reject(rejection(Rejection.Reason.WAIT_TIMEOUT, waited), null));
                break;
            case RemoteWaiter.CANCELLED:
                events.cancelled(waited);
                future.completeExceptionally(cancelledWhileQueued(waiter.signal));
                break;
            case RemoteWaiter.UNAVAILABLE:
                if (settings.failureMode() == FailureMode.FAIL_OPEN) {
                    waiter.begin(runWithoutPermit(waiter.failure));
                } else {
                    future.completeExceptionally(
                            reject(rejection(Rejection.Reason.UNAVAILABLE, waited), waiter.failure));
                }
                break;
            default:
                throw new IllegalStateException("Undecided waiter " + waiter.id);
        }
    }

    /** Runs an async operation that holds {@code permit}, and closes the permit when its stage completes. */
    private <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result,
                                Permit permit) {
        CompletionStage<T> stage;
        try {
            stage = operation.get();
            if (stage == null) {
                throw new NullPointerException("operation returned null instead of a CompletionStage");
            }
        } catch (Throwable failure) {
            permit.close();
            result.completeExceptionally(failure);
            return;
        }
        try {
            stage.whenComplete((value, failure) -> {
                permit.close();
                if (failure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure);
                }
            });
        } catch (Throwable brokenStage) {
            // A foreign stage that cannot take a callback would otherwise keep the permit forever. Closing is
            // idempotent, so if the callback did get registered and fires later, nothing is released twice.
            permit.close();
            result.completeExceptionally(brokenStage);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Protocol

    /** Registers the waiter, then sends its acquire; the reply decides or queues it. */
    private void join(RemoteWaiter waiter, boolean mayQueue) {
        waiters.put(waiter.id, waiter);
        scripts.run(LuaScripts.ACQUIRE, waiter.id, leaseMillis, mayQueue ? "1" : "0")
                .whenComplete((reply, failure) -> onAcquireReply(waiter, reply, failure));
    }

    private void onAcquireReply(RemoteWaiter waiter, List<Object> reply, Throwable failure) {
        if (failure != null) {
            // The script may have run and its reply been lost: release the id until Redis confirms.
            orphans.add(waiter.id, ticker.read() + leaseNanos);
            waiter.failure = failure;
            if (waiter.decide(RemoteWaiter.UNAVAILABLE) >= 0) {
                waiters.remove(waiter.id, waiter);
                waiter.decided();
            }
            return;
        }
        refreshLimits(reply, 3);
        switch (Replies.intAt(reply, 0)) {
            case 1:
                if (!grant(waiter, true) && waiter.status != RemoteWaiter.GRANTED) {
                    // Abandoned while joining: the permit the script just gave is nobody's.
                    release(waiter.id);
                }
                break;
            case 2:
                if (waiter.markWaiting(limits.maxWaitNanos())) {
                    waiter.nowWaiting();
                } else if (waiter.status != RemoteWaiter.GRANTED) {
                    // Abandoned while joining (the grant may even have overtaken this reply: release handles both).
                    release(waiter.id);
                }
                break;
            default:
                waiter.refusal = new Rejection(name, Rejection.Reason.QUEUE_FULL, Replies.intAt(reply, 3),
                        Replies.intAt(reply, 4), Replies.intAt(reply, 1), Replies.intAt(reply, 2), Duration.ZERO);
                if (waiter.decide(RemoteWaiter.REFUSED) >= 0) {
                    waiters.remove(waiter.id, waiter);
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
        RemotePermit permit = new RemotePermit(this, waiter.id, ticker.read(), waiter.leaseRenewedAt);
        // Registered before the decision so the heartbeat never misses it; putIfAbsent keeps a duplicate grant
        // notification from replacing the permit that an earlier one already handed out.
        if (permits.putIfAbsent(waiter.id, permit) != null) {
            return false;
        }
        waiter.permit = permit;
        waiter.grantedOnArrival = onArrival;
        if (waiter.decide(RemoteWaiter.GRANTED) < 0) {
            permits.remove(waiter.id, permit);
            return false;
        }
        waiters.remove(waiter.id, waiter);
        waiter.decided();
        return true;
    }

    /** Gives up on a waiter (cancellation, interruption, maximum wait) if its fate is still open. */
    void abandon(RemoteWaiter waiter, int outcome) {
        int previous = outcome == RemoteWaiter.TIMED_OUT
                ? (waiter.decideIfWaiting(outcome) ? RemoteWaiter.WAITING : -1) : waiter.decide(outcome);
        if (previous < 0) {
            return;
        }
        waiters.remove(waiter.id, waiter);
        if (previous == RemoteWaiter.WAITING) {
            release(waiter.id);
        }
        waiter.decided();
    }

    /** A waiter's place is gone (Redis forgot it, or it could not be renewed for a whole lease). */
    void waiterLost(RemoteWaiter waiter, Throwable cause) {
        waiter.failure = cause;
        if (waiter.decideIfWaiting(RemoteWaiter.UNAVAILABLE)) {
            waiters.remove(waiter.id, waiter);
            orphans.add(waiter.id, ticker.read() + leaseNanos);
            waiter.decided();
        }
    }

    /** Closes a permit: the first close sends the release (unless the permit was lost) and reports it. */
    void closePermit(RemotePermit permit, boolean reportRelease) {
        if (!permit.setFlag(RemotePermit.CLOSED)) {
            return;
        }
        permits.remove(permit.id, permit);
        if (reportRelease) {
            reportReleased(permit.acquiredAt);
        }
        if ((permit.flags() & RemotePermit.LOST) != 0) {
            return;
        }
        scripts.run(LuaScripts.RELEASE, permit.id).whenComplete((reply, failure) -> {
            if (failure != null) {
                orphans.add(permit.id, ticker.read() + leaseNanos);
            } else if (Replies.longAt(reply, 0) == 0) {
                // Redis had already dropped it: the lease ran out while the operation was running.
                permitLost(permit, LostPermit.Cause.UNKNOWN_TO_REDIS, true);
            }
        });
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
            permits.remove(permit.id, permit);
            events.permitLost(new LostPermit(name, permit.id, Events.duration(ticker.read() - permit.acquiredAt),
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

    void pollSoon() {
        leaseKeeper.pollSoon();
    }

    void refreshLimits(List<Object> reply, int offset) {
        limits = ClusterLimits.parse(reply, offset);
    }

    void reportReleased(long acquiredAt) {
        if (events.wantsTimings()) {
            events.released(ticker.read() - acquiredAt);
        }
    }

    /** Runs work that may call user code on the executor, never on a Redis I/O thread. */
    void dispatch(Runnable work) {
        try {
            executor.execute(work);
        } catch (RejectedExecutionException rejected) {
            // A caller must learn its outcome even if the executor was shut down.
            work.run();
        }
    }

    private Permit runWithoutPermit(Throwable cause) {
        events.ranWithoutPermit(cause);
        events.admitted(0);
        return new UnbackedPermit(this, ticker.read());
    }

    // ---------------------------------------------------------------------------------------------------------
    // Outcomes

    /** A refusal decided locally: limits as last seen in Redis, counts of this instance. */
    private Rejection rejection(Rejection.Reason reason, long waitedNanos) {
        ClusterLimits current = limits;
        return new Rejection(name, reason, current.maxConcurrency(), current.maxQueue(), permits.size(),
                waiters.size(), reason == Rejection.Reason.QUEUE_FULL ? Duration.ZERO : Events.duration(waitedNanos));
    }

    /** Reports the refusal, runs the overflow handler on the current thread, and makes the exception. */
    private BulkheadRejectedException reject(Rejection rejection, Throwable redisFailure) {
        events.rejected(rejection);
        BulkheadRejectedException exception = new BulkheadRejectedException(rejection, redisFailure);
        if (settings.rejectionHandler() != null) {
            try {
                settings.rejectionHandler().accept(rejection);
            } catch (Throwable failure) {
                exception.addSuppressed(failure);
            }
        }
        return exception;
    }

    private CancellationException cancelledBeforeStart(CancellationSignal signal) {
        CancellationException exception =
                new CancellationException("Bulkhead '" + name + "': the call was cancelled before it started");
        signal.reason().ifPresent(exception::initCause);
        return exception;
    }

    private CancellationException cancelledWhileQueued(CancellationSignal signal) {
        CancellationException exception =
                new CancellationException("Bulkhead '" + name + "': the call was cancelled while queued");
        signal.reason().ifPresent(exception::initCause);
        return exception;
    }

    private CancellationException interruptedWhileQueued() {
        CancellationException exception =
                new CancellationException("Bulkhead '" + name + "': the thread was interrupted while queued");
        exception.initCause(new InterruptedException("interrupted while waiting for a slot of bulkhead '" + name
                + "'"));
        return exception;
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("Bulkhead '" + name + "' is closed");
    }

    private void requireOpen() {
        if (closed) {
            throw closedException();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Configuration and counts

    /** The bulkhead's name. */
    /**
     * Attaches a core listener to this instance's events.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     */
    public dev.bulwark.Subscription addListener(dev.bulwark.BulkheadListener listener) {
        return events.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    public String name() {
        return name;
    }

    /** The cluster-wide limits as last seen. */
    public ClusterLimits limits() {
        return limits;
    }

    /** One round trip: the cluster-wide counts, {executing, queued}. */
    public int[] clusterCounts(String operation) {
        List<Object> reply = await(operation, scripts.run(LuaScripts.COUNTS));
        refreshLimits(reply, 2);
        return new int[] {Replies.intAt(reply, 0), Replies.intAt(reply, 1)};
    }

    /** One round trip: changes one cluster-wide limit. */
    public void configure(String operation, String field, String value) {
        refreshLimits(await(operation, scripts.run(LuaScripts.CONFIGURE, field, value)), 2);
    }

    private List<Object> await(String operation, CompletableFuture<List<Object>> reply) {
        try {
            return reply.get();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new RedisBulkheadException(name, operation, interrupted);
        } catch (ExecutionException failure) {
            throw new RedisBulkheadException(name, operation, failure.getCause());
        }
    }

    /** Permits this instance holds in Redis (not lost, not closed). */
    public int localExecutingCount() {
        return permits.size();
    }

    /** Calls of this instance waiting in the cluster-wide queue (or joining it). */
    public int localQueuedCount() {
        return waiters.size();
    }

    Ticker ticker() {
        return ticker;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    long leaseNanos() {
        return leaseNanos;
    }

    String leaseMillis() {
        return leaseMillis;
    }

    /**
     * Stops this instance: waiting calls are cancelled (their places released), the lease keeper stops, pending
     * releases get up to one command timeout to reach Redis, and the connections close. Permits still held are no
     * longer renewed and expire within one lease.
     */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        leaseKeeper.stop();
        for (RemoteWaiter waiter : waiters.values()) {
            abandon(waiter, RemoteWaiter.CANCELLED);
        }
        if (!orphans.isEmpty()) {
            scripts.run(LuaScripts.RELEASE, orphans.snapshot(LeaseKeeper.BATCH).toArray(new String[0]));
        }
        try {
            // Sent last on the connection, so it is answered after every release sent before it.
            scripts.run(LuaScripts.COUNTS).get(settings.commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (Exception ignored) {
            // Redis is unreachable: what was not released expires with its lease.
        }
        subscriber.close();
        try {
            connections.close();
        } catch (Exception failure) {
            LOGGER.log(System.Logger.Level.DEBUG, "Bulkhead '" + name + "': closing the connections failed", failure);
        }
    }

    @Override
    public String toString() {
        ClusterLimits current = limits;
        return "RedisBulkhead[" + name + ": this instance executing " + permits.size() + ", queued "
                + waiters.size() + "; cluster limits " + current.maxConcurrency() + "/" + current.maxQueue() + "]";
    }
}
