package dev.bulwark.redis.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.util.VarHandles;
import dev.bulwark.internal.spi.WaiterFate;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One call of this instance that is joining or waiting in the cluster-wide queue, registered under its id so that
 * a grant published by any instance (or found by the poll) reaches it.
 *
 * <p>Invariant: the call's fate is decided exactly once (see {@link WaiterFate}), by the compare-and-set of its
 * status from {@link #JOINING} or {@link #WAITING} to a final state, and the winner owns the consequences:
 * <ul>
 *   <li>{@link #GRANTED}: the granter registered the permit (in {@link #permit}) before the CAS; the owner must use
 *       or close it.</li>
 *   <li>{@link #CANCELLED} / {@link #TIMED_OUT} / {@link #UNAVAILABLE} won over {@link #WAITING}: the call is queued
 *       on the server, and the winner sends the release that removes it (or frees the slot if a grant raced).</li>
 *   <li>The same won over {@link #JOINING}: the acquire script may not have run yet, so nothing is sent now (but
 *       see {@link #replyGranted}); the acquire's reply handler sends the release when the reply arrives (a
 *       command sent after a reply is executed after it), or puts the id among the orphans if the acquire failed
 *       and its outcome is unknown.</li>
 * </ul>
 * Fields other than the status are written before the CAS that publishes them and read after reading it.
 */
abstract class RemoteWaiter extends WaiterFate {

    /** What {@link #decide} returns when the fate was already decided. */
    static final int ALREADY_DECIDED = Integer.MIN_VALUE;

    private static final VarHandle REFUSAL = VarHandles.field(MethodHandles.lookup(), "refusal", Rejection.class);
    private static final VarHandle FAILURE = VarHandles.field(MethodHandles.lookup(), "failure", Throwable.class);

    final ClusterBulkhead bulkhead;
    final String id;
    /** How many slots the call takes (also encoded in {@link #id}). */
    final int weight;
    /** The call's priority, for its place in the queue and its refusals. */
    final Priority priority;
    /** Ticker reading when the last request that renewed (or created) this waiter's lease was sent. */
    volatile long leaseRenewedAt;

    /** {@code enqueuedAt} is the ticker reading just before the acquire script is sent. */
    RemoteWaiter(ClusterBulkhead bulkhead, String id, int weight, Priority priority, CancellationSignal signal,
                 long enqueuedAt) {
        super(signal, enqueuedAt, JOINING);
        this.bulkhead = bulkhead;
        this.id = id;
        this.weight = weight;
        this.priority = priority;
        this.leaseRenewedAt = enqueuedAt;
    }

    // Written by the thread that decides (or advances) the fate, before its compare-and-set.

    /** The maximum wait in force when the call was queued (0 for none); written before the CAS to WAITING. */
    long maxWaitNanos;
    /** Written before the CAS to GRANTED. */
    RemotePermit permit;
    /**
     * Why the call is refused: set once, by compare-and-set from {@code null}, before the CAS to REFUSED, so that
     * of two threads refusing at once only the first may decide, and the reason read is the winner's.
     */
    volatile Rejection refusal;
    /** What Redis failed with: set once like {@link #refusal}, before the CAS to UNAVAILABLE. */
    volatile Throwable failure;
    /**
     * Set by the acquire's reply handler when the reply says "granted", before it tries to hand the permit over. It
     * may find another granter (the published grant, a poll) between registering the permit and deciding, and then
     * leaves the call to it; if an abandonment from {@link #JOINING} then wins, the reply handler may never learn of
     * it, so the abandoning thread sends the release itself ({@link #owesRelease}). The reply handler writes this
     * and then reads the status; an abandoner sets the status and then reads this: at least one of them sees the
     * other, and a release sent twice frees nothing twice (ids are never reused).
     */
    volatile boolean replyGranted;

    /**
     * Whether the thread that just decided this call from {@code previous} must send the release of its id: a
     * queued call's place (or the slot a racing grant gave it), or a joining call's slot that its acquire's reply
     * granted (see {@link #replyGranted}); otherwise that reply's handler sends it.
     */
    final boolean owesRelease(int previous) {
        return previous == WAITING || (previous == JOINING && replyGranted);
    }

    /**
     * Refuses the call with {@code rejection} if its fate is still open (joining or waiting).
     *
     * @return the status it had, or {@link #ALREADY_DECIDED}
     */
    final int refuse(Rejection rejection) {
        if (!REFUSAL.compareAndSet(this, null, rejection)) {
            return ALREADY_DECIDED;
        }
        return decide(REFUSED);
    }

    /**
     * Decides the call {@code UNAVAILABLE} because of {@code cause}, if its fate is still open (and, when
     * {@code onlyIfWaiting}, only if it waits in the queue).
     *
     * @return the status it had, or {@link #ALREADY_DECIDED}
     */
    final int fail(Throwable cause, boolean onlyIfWaiting) {
        // A waiter that waits never goes back to joining: checked first, so that the failure is only recorded
        // when this call may still decide (a joining waiter keeps the slot free for its acquire's own failure).
        if (onlyIfWaiting && status() != WAITING) {
            return ALREADY_DECIDED;
        }
        if (!FAILURE.compareAndSet(this, null, cause)) {
            return ALREADY_DECIDED;
        }
        if (onlyIfWaiting) {
            return decideIfWaiting(UNAVAILABLE) ? WAITING : ALREADY_DECIDED;
        }
        return decide(UNAVAILABLE);
    }

    /** The acquire reply said "queued": JOINING to WAITING. Fails if the fate was decided meanwhile. */
    final boolean markWaiting(long maxWaitNanos) {
        this.maxWaitNanos = maxWaitNanos;
        return advance(JOINING, WAITING);
    }

    /**
     * Decides the call's fate if it is still open.
     *
     * @return the status it had ({@link #JOINING} or {@link #WAITING}), or {@link #ALREADY_DECIDED}
     */
    final int decide(int outcome) {
        return decideIfOpen(outcome);
    }

    /** Decides only if the call still waits in the queue (not while joining): for timeouts and lost places. */
    final boolean decideIfWaiting(int outcome) {
        return decideIf(WAITING, outcome);
    }

    /** Tells the owner that the fate is decided. Called once, by the thread that decided it, outside any lock. */
    abstract void decided();

    /** Called when the call joined the queue: arms what may end its wait early. */
    abstract void nowWaiting();
}
