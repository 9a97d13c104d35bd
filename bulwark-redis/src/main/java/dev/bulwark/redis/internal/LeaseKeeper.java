package dev.bulwark.redis.internal;

import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.util.MillisText;
import dev.bulwark.redis.LostPermit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps this instance's leases alive and its waiters informed, with one self-rescheduling task on the bulkhead's
 * scheduler (which never blocks: it only sends commands).
 *
 * <p>Every tick (at the shortest of the heartbeat interval, the probe interval and the poll interval): permits and
 * waiters whose last successful renewal is so old that a renewal sent at the next tick could no longer be answered
 * before their lease ends are given up as lost ({@link #giveUpAgeNanos}: a holder hears of it <em>before</em> Redis
 * drops it); then, when the heartbeat is due, one {@code renew} script per batch renews every held permit and every
 * queued waiter, and otherwise, when waiters exist, the same script renews just the waiters (the poll, at the poll
 * interval) or, between polls, runs with no ids at all (the probe, at least every {@link #probeNanos}: it costs
 * Redis the same whatever the queue's length). The reply says for each id whether Redis still knows it: a waiter Redis
 * lists as a holder was granted (its wake-up was missed), an unknown permit or waiter is lost. Orphaned ids are
 * released on every tick that finds some, one sweep at a time.
 *
 * <p><b>Failing fast.</b> A renewal that fails (the connection is down: rejected at once; Redis is paused or
 * slow: it times out after the command timeout) refuses every waiter it carried with {@code UNAVAILABLE} at once:
 * a waiter cannot be granted while Redis does not answer, and its caller should not wait for a lease to learn it.
 * Because a poll or probe is sent at least every quarter command timeout while calls wait, a waiter learns of a dead or
 * paused Redis within one and a quarter command timeouts (1.25 s with the defaults). A failed heartbeat is retried at
 * every tick until one is answered, and a holder is told of a lease it can no longer renew in time.
 *
 * <p>Invariant: exactly one chain of regular ticks exists (each schedules the next; {@link #pollSoon()} adds only
 * one-off ticks), at most one tick runs at a time ({@link #running}) and at most one renewal is in flight
 * ({@link #renewing}), so replies never arrive out of order with respect to the renewal times they record.
 */
final class LeaseKeeper {

    /** Ids per script call: keeps each script short so that it never blocks Redis noticeably. */
    static final int BATCH = 500;

    private final ClusterBulkhead bulkhead;
    private final long heartbeatNanos;
    private final long pollNanos;
    /**
     * How often, while calls wait, Redis is asked whether it answers (a poll, or an id-less probe between polls):
     * bounds how long a waiter takes to learn Redis is gone.
     */
    private final long probeNanos;
    private final long tickNanos;
    /** The age of a last renewal at which a permit or waiter is given up as lost, see {@link #giveUpAge}. */
    private final long giveUpAgeNanos;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean renewing = new AtomicBoolean();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile long lastHeartbeatAt;
    private volatile long lastPollAt;
    private volatile long lastProbeAt;
    private volatile boolean pollRequested;
    private volatile Scheduler.Cancellable nextTick;
    private volatile boolean stopped;

    LeaseKeeper(ClusterBulkhead bulkhead, long heartbeatNanos, long pollNanos, long commandTimeoutNanos) {
        this.bulkhead = bulkhead;
        this.heartbeatNanos = heartbeatNanos;
        this.pollNanos = pollNanos;
        this.probeNanos = Math.max(1, Math.min(pollNanos, commandTimeoutNanos / 4));
        this.tickNanos = Math.min(heartbeatNanos, probeNanos);
        this.giveUpAgeNanos = giveUpAge(bulkhead.leaseNanos, heartbeatNanos, tickNanos, commandTimeoutNanos);
    }

    /**
     * The age of the last successful renewal at which a lease is given up as lost. A tick at that age may still
     * send a renewal; if it fails, the next tick (one tick later) could not get an answer (one command timeout)
     * before the lease ends, so the holder is told now, while its lease still runs: {@code lease - tick - timeout}.
     * Never less than one heartbeat plus one command timeout, so that a lease is not given up before its regular
     * renewal had a chance to be answered (with leases shorter than {@code heartbeat + tick + 2 x timeout} the
     * notice may then come only as the lease ends), and never more than the lease.
     */
    static long giveUpAge(long leaseNanos, long heartbeatNanos, long tickNanos, long commandTimeoutNanos) {
        long early = leaseNanos - tickNanos - commandTimeoutNanos;
        return Math.min(leaseNanos, Math.max(early, heartbeatNanos + commandTimeoutNanos));
    }

    void start() {
        long now = bulkhead.ticker.read();
        lastHeartbeatAt = now;
        lastPollAt = now;
        lastProbeAt = now;
        schedule(tickNanos);
    }

    void stop() {
        stopped = true;
        Scheduler.Cancellable task = nextTick;
        if (task != null) {
            task.cancel();
        }
    }

    /** Polls the waiters as soon as possible: the grant subscription was (re)established. */
    void pollSoon() {
        pollRequested = true;
        if (nextTick != null && !stopped) {
            try {
                // A one-off tick: if it finds a tick running, the flag makes the next regular tick poll.
                bulkhead.scheduler().schedule(() -> tick(false), 0, TimeUnit.NANOSECONDS);
            } catch (RuntimeException | Error schedulerRefused) {
                // The regular tick polls instead (an Error too: it would reach the pub/sub listener's I/O thread).
            }
        }
    }

    private void schedule(long delayNanos) {
        if (stopped) {
            return;
        }
        try {
            nextTick = bulkhead.scheduler().schedule(() -> tick(true), delayNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException | Error schedulerRefused) {
            // An Error too, handled as a refusal: thrown on, it would escape build() with the connections open, or
            // the tick into the scheduler's thread.
            System.getLogger("dev.bulwark.redis.RedisBulkhead").log(System.Logger.Level.ERROR,
                    "Bulkhead '" + bulkhead.name() + "': the scheduler refused the heartbeat; leases will expire",
                    schedulerRefused);
        }
    }

    /** One tick; only the regular chain ({@code reschedule}) schedules the next, so there is one chain. */
    private void tick(boolean reschedule) {
        if (stopped) {
            return;
        }
        if (!running.compareAndSet(false, true)) {
            if (reschedule) {
                schedule(tickNanos);
            }
            return;
        }
        try {
            long now = bulkhead.ticker.read();
            bulkhead.reapLeaked();
            endAfterClose(now);
            endHeldTooLong(now);
            giveUpOverdue(now);
            boolean heartbeat = now - lastHeartbeatAt >= heartbeatNanos;
            boolean poll = pollRequested || now - lastPollAt >= pollNanos;
            boolean probe = now - lastProbeAt >= probeNanos;
            sweepOrphans(now);
            if ((heartbeat || poll || probe) && renewing.compareAndSet(false, true)) {
                List<RemoteWaiter> waiting = new ArrayList<>();
                for (RemoteWaiter waiter : bulkhead.waiters.values()) {
                    // A joining waiter's acquire may not have run yet: renewing it now could wrongly report it lost.
                    if (waiter.status() == RemoteWaiter.WAITING) {
                        waiting.add(waiter);
                    }
                }
                lastProbeAt = now;
                if (heartbeat || poll) {
                    List<String> ids = new ArrayList<>();
                    List<Object> owners = new ArrayList<>();
                    if (heartbeat) {
                        for (Map.Entry<String, RemotePermit> entry : bulkhead.permits.entrySet()) {
                            ids.add(entry.getKey());
                            owners.add(entry.getValue());
                        }
                        lastHeartbeatAt = now;
                    }
                    for (RemoteWaiter waiter : waiting) {
                        ids.add(waiter.id);
                        owners.add(waiter);
                    }
                    lastPollAt = now;
                    pollRequested = false;
                    renew(ids, owners, now, heartbeat);
                } else if (!waiting.isEmpty()) {
                    probe(waiting, now);
                } else {
                    renewing.set(false);
                }
            }
        } finally {
            running.set(false);
            if (reschedule) {
                schedule(tickNanos);
            }
        }
    }

    /**
     * Once closed, renews nothing past {@link ClusterBulkhead#renewUntil}: every permit still held then is ended
     * (released in Redis, its holder told), so a held permit never keeps a closed instance, its heartbeat and its
     * slots alive for longer than the drain's deadline plus one lease.
     */
    private void endAfterClose(long now) {
        if (!bulkhead.closed || now - bulkhead.renewUntil < 0) {
            return;
        }
        for (RemotePermit permit : bulkhead.permits.values()) {
            bulkhead.endPermit(permit, LostPermit.Cause.BULKHEAD_CLOSED);
        }
    }

    /**
     * With a maximum hold time, ends every permit held for that long (released in Redis, its holder told with
     * cause {@code HELD_TOO_LONG}), at the first tick after it: a hung call cannot keep a fleet-wide slot for good.
     */
    private void endHeldTooLong(long now) {
        long maxHold = bulkhead.maxHoldNanos;
        if (maxHold <= 0) {
            return;
        }
        for (RemotePermit permit : bulkhead.permits.values()) {
            if (now - permit.acquiredAt >= maxHold) {
                bulkhead.endPermit(permit, LostPermit.Cause.HELD_TOO_LONG);
            }
        }
    }

    /** Gives up permits and waiters whose lease can no longer be renewed before it ends. */
    private void giveUpOverdue(long now) {
        for (RemotePermit permit : bulkhead.permits.values()) {
            if (now - permit.leaseRenewedAt >= giveUpAgeNanos) {
                bulkhead.permitLost(permit, LostPermit.Cause.LEASE_NOT_RENEWED, false);
            }
        }
        for (RemoteWaiter waiter : bulkhead.waiters.values()) {
            if (waiter.status() == RemoteWaiter.WAITING && now - waiter.leaseRenewedAt >= giveUpAgeNanos) {
                bulkhead.waiterLost(waiter, new TimeoutException("Bulkhead '" + bulkhead.name()
                        + "': could not renew this waiter's lease for "
                        + MillisText.ofNanos(now - waiter.leaseRenewedAt)
                        + " ms; Redis drops its place in the queue before the next renewal could be answered"));
            }
        }
    }

    private void renew(List<String> ids, List<Object> owners, long sentAt, boolean heartbeat) {
        if (ids.isEmpty()) {
            renewing.set(false);
            return;
        }
        int batches = (ids.size() + BATCH - 1) / BATCH;
        AtomicInteger pending = new AtomicInteger(batches);
        for (int from = 0; from < ids.size(); from += BATCH) {
            int to = Math.min(from + BATCH, ids.size());
            List<Object> batchOwners = owners.subList(from, to);
            String[] arguments = new String[1 + to - from];
            arguments[0] = bulkhead.leaseMillis;
            for (int i = from; i < to; i++) {
                arguments[1 + i - from] = ids.get(i);
            }
            bulkhead.scripts.run(LuaScripts.RENEW, arguments).whenComplete((reply, failure) -> {
                try {
                    if (failure == null) {
                        bulkhead.refreshLimits(reply, 0);
                        applyRenewal(reply, batchOwners, sentAt);
                    } else {
                        renewalFailed(batchOwners, failure, sentAt, heartbeat);
                    }
                } finally {
                    if (pending.decrementAndGet() == 0) {
                        renewing.set(false);
                    }
                }
            });
        }
    }

    /**
     * Asks Redis whether it answers, between polls, while calls wait: a {@code renew} with no ids (it drops expired
     * leases, grants and returns the limits), so the probe costs Redis the same whatever the queue's length. If it
     * fails, the waiters that waited when it was sent are refused.
     */
    private void probe(List<RemoteWaiter> waiting, long sentAt) {
        bulkhead.scripts.run(LuaScripts.RENEW, bulkhead.leaseMillis).whenComplete((reply, failure) -> {
            try {
                if (failure == null) {
                    bulkhead.refreshLimits(reply, 0);
                } else {
                    renewalFailed(new ArrayList<>(waiting), failure, sentAt, false);
                }
            } finally {
                renewing.set(false);
            }
        });
    }

    /**
     * Redis did not answer a renewal: its waiters are refused at once (a grant cannot reach them while Redis is
     * silent), and a failed heartbeat is due again at the next tick. Permits keep running on their lease:
     * {@link #giveUpOverdue} tells their holders once it can no longer be renewed in time.
     */
    private void renewalFailed(List<Object> owners, Throwable failure, long sentAt, boolean heartbeat) {
        if (heartbeat) {
            lastHeartbeatAt = sentAt - heartbeatNanos;
        }
        for (Object owner : owners) {
            if (owner instanceof RemoteWaiter waiter) {
                bulkhead.waiterUnavailable(waiter, failure);
            }
        }
    }

    private void applyRenewal(List<Object> reply, List<Object> owners, long sentAt) {
        for (int i = 0; i < owners.size(); i++) {
            long outcome = Replies.longAt(reply, 3 + i);
            Object owner = owners.get(i);
            if (owner instanceof RemotePermit permit) {
                if (outcome == 1) {
                    permit.leaseRenewedAt = sentAt;
                } else {
                    bulkhead.permitLost(permit, LostPermit.Cause.UNKNOWN_TO_REDIS, false);
                }
            } else {
                RemoteWaiter waiter = (RemoteWaiter) owner;
                if (outcome == 2) {
                    waiter.leaseRenewedAt = sentAt;
                } else if (outcome == 1) {
                    // Granted, and the wake-up was missed (or is still on its way: grant() ignores duplicates).
                    waiter.leaseRenewedAt = sentAt;
                    bulkhead.grant(waiter, false);
                } else if (outcome == 3) {
                    // Evicted by a higher-priority newcomer, and the notice was missed (a pub/sub reconnect).
                    bulkhead.refusedByRedis(waiter, Rejection.Reason.EVICTED, 0);
                } else if (waiter.weight > bulkhead.limits.maxConcurrency()) {
                    // Removed by a lowered limit, and the notice was missed.
                    bulkhead.refusedByRedis(waiter, Rejection.Reason.WEIGHT_EXCEEDS_LIMIT, 0);
                } else {
                    bulkhead.waiterLost(waiter, new IllegalStateException("Bulkhead '" + bulkhead.name()
                            + "': Redis no longer knows this waiter (its lease expired or the server lost its state)"));
                }
            }
        }
    }

    /** Releases a batch of orphaned ids, one sweep in flight at a time. */
    private void sweepOrphans(long now) {
        if (bulkhead.orphans.isEmpty() || !sweeping.compareAndSet(false, true)) {
            return;
        }
        List<String> ids = bulkhead.orphans.snapshot(BATCH);
        bulkhead.scripts.run(LuaScripts.RELEASE, ids.toArray(new String[0])).whenComplete((reply, failure) -> {
            try {
                if (failure == null) {
                    for (int i = 0; i < ids.size(); i++) {
                        bulkhead.orphans.settled(ids.get(i), Replies.longAt(reply, i) != 0, now);
                    }
                }
            } finally {
                sweeping.set(false);
            }
        });
    }
}
