package dev.bulwark.redis.internal.lease;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.internal.util.Stages;
import dev.bulwark.redis.FailureMode;
import io.lettuce.core.RedisCommandExecutionException;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Renews one instance's lease on a jittered period and applies each grant to its {@link LocalBlock}.
 *
 * <p><b>One chain.</b> A renewal is sent, its reply (or failure, or timeout) is handled on the executor, and only
 * then is the next renewal scheduled: at most one renewal is in flight (one given up on after a timeout still counts
 * until Redis answered it or the connection failed, so that renewals never run out of order in Redis) and only this
 * chain moves the local limit, so {@link LocalBlock#holding()} read at a send bounds everything the instance may run
 * until the reply is applied.
 * Limits move on the executor, never on a Redis I/O thread or the timer, because raising one may start a queued
 * asynchronous operation on the moving thread.
 *
 * <p><b>Pre-shrink.</b> While leased and while the last reply said the fleet is contended (its division cut some
 * demand), a renewal whose demand is below the enforced block first lowers the block to the demand (never
 * interrupting a running call), then reads {@link LocalBlock#holding()} and reports it. So the record no longer
 * keeps an unused part for one more period: the script records {@code max(grant, holding)} with that smaller
 * holding at once, and instances that queue get it a period sooner. When every demand was met the block is left
 * alone: the grant would give it back, and meanwhile a call arriving during the round trip would be refused. A
 * renewal that then fails leaves the block lowered (it cannot be raised back safely: the script may have run and
 * recorded the smaller holding) until a later renewal grants more or the lease ends.
 *
 * <p><b>Invariant</b> (with {@link LeaseScripts}): an instance never enforces a local limit above its block recorded
 * in Redis. Growth is recorded by the script before the instance applies it; a shrink is applied by the instance
 * first while the script still records the larger holding, which falls only at a later renewal. The pre-shrink is
 * such a shrink applied first: the old record (at least the old block) covers the instance until the script runs,
 * and the holding read after the block was lowered bounds everything the instance may run until the reply is
 * applied (only this chain moves the limit, and a lowered limit admits nobody while as many calls run), so the new
 * record {@code max(grant, holding)} covers it from then on. And the instance's
 * own lease ends first: it is timed from when the instance SENT the renewal ({@code ttl} minus a tenth for clocks
 * that run at slightly different rates), while Redis's runs from when the script ran, later, by the server's
 * {@code TIME}; a reply that arrives after the instance's lease ended is not applied. When the lease ends the local
 * limit falls to the {@link FailureMode}'s floor: 0 when failing closed (no new call is admitted; queued calls wait,
 * within their maximum wait, for a renewal to succeed); {@code max(1, limit / N)} when failing open, with {@code N}
 * the live instances the last reply counted, which may exceed the block recorded for it (an overshoot the fail-open
 * choice accepts: up to {@code N} slots when {@code N > limit}, more if instances joined since). Calls already
 * running when a lease ends are never interrupted; once Redis has dropped the instance (one lease later) others may
 * be granted their slots while they still run, until this instance renews and records them again.
 */
final class BlockRenewer {

    /** A lease in Redis is this many renewal periods: a renewal or two may fail without losing it. */
    static final int LEASE_PERIODS = 3;
    /** The pause before the first renewal is sent again (see {@link #start()}). */
    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The share of a period after which a renewal the client refused unsent is sent again (see tick). */
    private static final double RETRY_UNSENT_SHARE = 0.1;

    private static final System.Logger LOG = System.getLogger(BlockRenewer.class.getName());

    private final LeaseStore store;
    private final LocalBlock block;
    private final String instanceId;
    private final String bulkheadName;
    private final int initialLimit;
    private final FailureMode failureMode;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Executor executor;
    private final long periodNanos;
    private final long ttlMillis;
    /** The period in milliseconds, for the script: how old the division it serves may grow. */
    private final long periodMillis;
    private final long localLeaseNanos;
    private final long commandTimeoutNanos;
    private final BooleanSupplier closing;
    private final Runnable afterLeaving;

    /** Ticker time at which this instance's own lease ends; meaningful while {@link #leased}. */
    private volatile long leaseEndsAt;
    private volatile boolean leased;
    private volatile boolean left;
    private volatile int fleetLimit;
    /** Whether the last reply's division cut some demand: the pre-shrink is made only then. */
    private volatile boolean contended;
    private volatile int instances = 1;

    BlockRenewer(LeaseStore store, LocalBlock block, String instanceId, String bulkheadName, int initialLimit,
                 FailureMode failureMode, Ticker ticker, Scheduler scheduler, Executor executor, long periodNanos,
                 long commandTimeoutNanos, BooleanSupplier closing, Runnable afterLeaving) {
        this.store = store;
        this.block = block;
        this.instanceId = instanceId;
        this.bulkheadName = bulkheadName;
        this.initialLimit = initialLimit;
        this.fleetLimit = initialLimit;
        this.failureMode = failureMode;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.executor = executor;
        this.periodNanos = periodNanos;
        long ttlNanos = periodNanos * LEASE_PERIODS;
        this.ttlMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(ttlNanos));
        this.periodMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(periodNanos));
        this.localLeaseNanos = ttlNanos - ttlNanos / 10;
        this.commandTimeoutNanos = commandTimeoutNanos;
        this.closing = closing;
        this.afterLeaving = afterLeaving;
    }

    /**
     * Makes the first renewal on the calling thread (nothing can be queued yet), so that the instance starts with
     * its grant, then starts the chain. A renewal the client refuses or that fails to reach Redis is sent again, 10
     * ms later, until the command timeout (real time, as the exact mode's first read of the limits) has passed since
     * the first: a Redis Cluster connection refuses a command at once while it is still connecting to the node that
     * serves the bulkhead's slot (with {@code REJECT_COMMANDS}, which the bulkhead requires). An error that Redis
     * answered is not sent again. Sending it again is safe: the instance holds nothing yet, and each attempt records
     * the same instance with nothing held.
     *
     * @throws ExecutionException when Redis answered with an error, or failed or did not answer within the command
     *     timeout
     * @throws InterruptedException when interrupted while waiting
     */
    void start() throws ExecutionException, InterruptedException {
        long deadline = System.nanoTime() + commandTimeoutNanos;
        for (;;) {
            long sentAt = ticker.read();
            long timeout = Math.max(1, deadline - System.nanoTime());
            try {
                long[] reply = store.renew(instanceId, 0, 0, 0, ttlMillis, periodMillis, initialLimit, false,
                        timeout).get();
                applyGrant(reply, sentAt);
                scheduleNext();
                return;
            } catch (ExecutionException failed) {
                if (failed.getCause() instanceof RedisCommandExecutionException
                        || System.nanoTime() - deadline >= -RETRY_PAUSE_NANOS) {
                    throw failed;
                }
                LockSupport.parkNanos(RETRY_PAUSE_NANOS);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }
    }

    private void tick() {
        if (left) {
            return;
        }
        try {
            long now = ticker.read();
            if (leased && now - leaseEndsAt >= 0) {
                fallToFloor(null);
            }
            if (store.renewalPending()) {
                // The last renewal, given up on, may still run in Redis: send nothing that could overtake it.
                scheduleNext();
                return;
            }
            boolean draining = closing.getAsBoolean();
            if (draining) {
                // A draining instance admits nobody: it reports only what still runs, and leaves once nothing does.
                block.apply(0);
                if (block.inFlight() == 0) {
                    leave();
                    return;
                }
            }
            long timeout = leased ? Math.min(commandTimeoutNanos, Math.max(1, leaseEndsAt - now))
                    : commandTimeoutNanos;
            int executing = block.inFlight();
            int queued = block.queued();
            int demand = executing + queued;
            if (leased && contended && demand < block.limit()) {
                // The pre-shrink: the unused part of the block is given up here, before the report, so that the
                // holding reported (read after) and with it the record need not keep it for another period. Only
                // while the last division cut some demand: then the grant cuts this block to about its demand
                // anyway, and others queue for what it gives up. When every demand was met, lowering the block
                // would only refuse (or hold for a round trip) a call arriving before the reply restores it. Not
                // at the floor, which Redis does not record and which a failed renewal would not restore.
                block.apply(demand);
            }
            CompletableFuture<long[]> renewal = store.renew(instanceId, executing, queued, block.holding(),
                    ttlMillis, periodMillis, initialLimit, false, timeout);
            // Failed before send returned, and not with Redis's answer: the client refused it unsent, being
            // disconnected or, on Redis Cluster, still connecting to the node that now serves the slot (the first
            // command after a failover is refused so). It cost Redis nothing, so the next is sent after a tenth of
            // the period rather than a period: after a failover an instance renews on the new primary as soon as
            // its client can reach it. An error Redis answered (however fast) keeps the period, so a Redis that
            // refuses renewals is not asked more often.
            boolean unsent = renewal.isCompletedExceptionally();
            renewal.whenCompleteAsync((reply, failure) -> {
                try {
                    if (failure == null) {
                        applyGrant(reply, now);
                    } else if (leased && ticker.read() - leaseEndsAt >= 0) {
                        fallToFloor(failure);
                    }
                } finally {
                    boolean refusedUnsent = unsent && failure != null
                            && !(Stages.unwrap(failure) instanceof RedisCommandExecutionException);
                    scheduleNext(refusedUnsent ? RETRY_UNSENT_SHARE : 1);
                }
            }, this::execute);
        } catch (RuntimeException unexpected) {
            LOG.log(Level.WARNING, "Bulkhead '" + bulkheadName + "': a lease renewal failed", unexpected);
            scheduleNext();
        }
    }

    private void applyGrant(long[] reply, long sentAt) {
        fleetLimit = (int) reply[1];
        instances = (int) Math.max(1, reply[2]);
        contended = reply.length > 4 && reply[4] == 1;
        long endsAt = sentAt + localLeaseNanos;
        if (ticker.read() - endsAt >= 0) {
            fallToFloor(new TimeoutException("the renewal's reply came after this instance's lease ended"));
            return;
        }
        leaseEndsAt = endsAt;
        leased = true;
        if (!closing.getAsBoolean()) {
            block.apply((int) reply[0]);
        }
    }

    private void fallToFloor(Throwable cause) {
        if (leased) {
            LOG.log(Level.WARNING, "Bulkhead '" + bulkheadName + "': this instance's lease ended without renewal;"
                    + " its limit falls to " + floor() + " (" + failureMode + ")", cause);
        }
        leased = false;
        if (!closing.getAsBoolean()) {
            block.apply(floor());
        }
    }

    private int floor() {
        return failureMode == FailureMode.FAIL_CLOSED ? 0 : Math.max(1, fleetLimit / instances);
    }

    private void leave() {
        left = true;
        store.renew(instanceId, 0, 0, 0, ttlMillis, periodMillis, initialLimit, true, commandTimeoutNanos)
                .whenCompleteAsync((reply, failure) -> afterLeaving.run(), this::execute);
    }

    private void scheduleNext() {
        scheduleNext(1);
    }

    /** Schedules the next renewal after {@code share} of a period, jittered by ±25%. */
    private void scheduleNext(double share) {
        if (left) {
            return;
        }
        long delay = (long) (periodNanos * share * (0.75 + 0.5 * ThreadLocalRandom.current().nextDouble()));
        if (leased) {
            // Wake at the lease's end at the latest, to fall to the floor on time if the renewals keep failing.
            delay = Math.min(delay, Math.max(0, leaseEndsAt - ticker.read()));
        }
        scheduler.schedule(() -> execute(this::tick), delay, TimeUnit.NANOSECONDS);
    }

    /** On the executor; on the common pool when the executor refuses, so the chain never stops. */
    private void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RuntimeException refused) {
            ForkJoinPool.commonPool().execute(task);
        }
    }

    /** Whether this instance's lease runs (it renewed within its lease). */
    boolean leased() {
        return leased;
    }

    /** Whether this instance left the fleet (drained, nothing ran any more). */
    boolean left() {
        return left;
    }

    /** The fleet's limit as the last reply gave it. */
    int fleetLimit() {
        return fleetLimit;
    }

    /** This instance's id in Redis. */
    String instanceId() {
        return instanceId;
    }
}
