package dev.bulwark.redis.internal;

import dev.bulwark.DrainResult;
import dev.bulwark.Rejection;
import dev.bulwark.redis.RedisBulkheadException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The life cycle of one instance of a cluster-wide bulkhead: open, then closed (admits nothing, its queue refused,
 * its running calls finish and release as usual), then shut down (heartbeat stopped, connections closed) once
 * nothing of it runs. Thread-safe.
 *
 * <p>Invariant: the first drain sets {@code closed} before it scans the waiters, and a joining waiter reads
 * {@code closed} after it registered ({@link ClusterBulkhead#join}), so every waiter is refused by exactly one of
 * them. The instance is idle when closed, with no waiter, no running call and no acquire awaiting its reply
 * ({@link ClusterBulkhead#checkIdle}), and never while the first drain still sends the releases of what it refused;
 * whoever makes it so completes {@code idle} once, and the shutdown runs once ({@link #shutDown}), after every
 * release that the last calls wrote to the connection.
 */
final class ClusterLifecycle {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.redis.RedisBulkhead");

    private final ClusterBulkhead engine;
    private final LeaseKeeper leaseKeeper;
    private final GrantSubscriber subscriber;
    private final AutoCloseable connections;
    private final long commandTimeoutNanos;
    /** Won by the first drain, which refuses the queue. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Won by whoever shuts the instance down. */
    private final AtomicBoolean shutDown = new AtomicBoolean();

    /** Whether the instance has shut down: its connections are closed or closing. */
    boolean isShutDown() {
        return shutDown.get();
    }

    ClusterLifecycle(ClusterBulkhead engine, LeaseKeeper leaseKeeper, GrantSubscriber subscriber,
                     AutoCloseable connections, long commandTimeoutNanos) {
        this.engine = engine;
        this.leaseKeeper = leaseKeeper;
        this.subscriber = subscriber;
        this.connections = connections;
        this.commandTimeoutNanos = commandTimeoutNanos;
    }

    /**
     * Reads (and, when absent, initializes) the cluster-wide limits as the instance starts, retrying for up to one
     * command timeout: a cluster client rejects the first commands to a node whose connection is still being opened.
     *
     * @throws RedisBulkheadException when Redis holds a limit that is not a whole number in range (its cause, an
     *     {@link IllegalStateException}, names the field)
     */
    void readLimitsOnStart(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        for (;;) {
            try {
                engine.refreshLimits(engine.scripts.run(LuaScripts.COUNTS).get(), 2);
                return;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException unavailable) {
                if (CorruptConfigException.isCause(unavailable.getCause())) {
                    // Not an outage to wait out: every call would be refused, so the instance is not built.
                    throw new RedisBulkheadException(engine.name, "read the cluster-wide limits",
                            unavailable.getCause());
                }
                if (System.nanoTime() - deadline >= 0) {
                    LOGGER.log(System.Logger.Level.WARNING, "Bulkhead '" + engine.name + "': could not read the "
                            + "cluster-wide limits yet; using the configured ones until Redis answers",
                            unavailable.getCause());
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }

    /**
     * Stops admitting, refuses the queued waiters (first drain only), waits up to {@code deadlineNanos} for the
     * running calls (never when 0; an interrupt ends the wait with the flag set), and shuts down if nothing runs.
     */
    DrainResult drain(long deadlineNanos) {
        int refused = 0;
        extendRenewals(deadlineNanos);
        if (closing.compareAndSet(false, true)) {
            // Counted as running while it refuses: the last refusal must not let the instance shut down (closing
            // the connections) before the releases of the refused places below are on the connection.
            engine.running.incrementAndGet();
            engine.closed = true;
            try {
                refused = refuseQueue();
            } finally {
                engine.runningEnded();
            }
        }
        engine.checkIdle();
        long waited = 0;
        if (deadlineNanos > 0 && !engine.idle.isDone()) {
            long start = System.nanoTime();
            try {
                engine.idle.get(deadlineNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException notIdleYet) {
                // Report what still runs.
            }
            waited = Math.min(deadlineNanos, System.nanoTime() - start);
        }
        if (engine.idle.isDone()) {
            shutdown();
        }
        return new DrainResult(engine.name, refused, engine.running.get(), ClusterEvents.duration(waited));
    }

    /**
     * Lets the lease keeper renew what still runs until this drain's deadline plus one lease (the latest of every
     * drain's), never longer: then it ends those permits (see {@link LeaseKeeper}). Written before {@code closed}
     * is set by the first drain, so the keeper never reads a closed instance with no bound yet.
     */
    private synchronized void extendRenewals(long deadlineNanos) {
        long until = engine.ticker.read() + Math.min(deadlineNanos, Long.MAX_VALUE / 4) + engine.leaseNanos;
        if (!closing.get() || until - engine.renewUntil > 0) {
            engine.renewUntil = until;
        }
    }

    /** Refuses every waiter of this instance with {@code CLOSED}; returns how many this call refused. */
    private int refuseQueue() {
        List<String> queued = new ArrayList<>();
        int refused = 0;
        for (RemoteWaiter waiter : engine.waiters.values()) {
            int previous = waiter.refuse(engine.rejectionOf(waiter, Rejection.Reason.CLOSED, 0));
            if (previous == RemoteWaiter.ALREADY_DECIDED) {
                continue;
            }
            refused++;
            engine.removeWaiter(waiter);
            if (waiter.owesRelease(previous)) {
                // A waiter still joining is released by its acquire's reply handler instead (unless that reply
                // already came, granted: RemoteWaiter.replyGranted).
                queued.add(waiter.id);
            }
            waiter.decided();
        }
        for (int from = 0; from < queued.size(); from += LeaseKeeper.BATCH) {
            List<String> batch = queued.subList(from, Math.min(from + LeaseKeeper.BATCH, queued.size()));
            engine.scripts.run(LuaScripts.RELEASE, batch.toArray(new String[0])).whenComplete((reply, failure) -> {
                if (failure != null) {
                    batch.forEach(id -> engine.orphans.add(id, engine.ticker.read() + engine.leaseNanos));
                }
            });
        }
        return refused;
    }

    /**
     * Shuts the instance down once: the lease keeper stops, orphaned ids get a last release, a self-tuning decider
     * gives its claim back, pending releases get up to one command timeout to reach Redis, and the connections
     * close.
     */
    void shutdown() {
        if (!shutDown.compareAndSet(false, true)) {
            return;
        }
        leaseKeeper.stop();
        engine.scripts.flushReleases();
        if (!engine.orphans.isEmpty()) {
            engine.scripts.run(LuaScripts.RELEASE,
                    engine.orphans.snapshot(LeaseKeeper.BATCH).toArray(new String[0]));
        }
        if (engine.adaptive != null) {
            engine.adaptive.releaseClaim();
        }
        try {
            // Sent last on the connection, so it is answered after every release sent before it.
            engine.scripts.run(LuaScripts.COUNTS).get(commandTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (Exception ignored) {
            // Redis is unreachable: what was not released expires with its lease.
        }
        subscriber.close();
        try {
            connections.close();
        } catch (Exception failure) {
            LOGGER.log(System.Logger.Level.DEBUG, "Bulkhead '" + engine.name + "': closing the connections failed",
                    failure);
        }
    }
}
