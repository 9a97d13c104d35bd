package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.internal.spi.WaiterFate;

/**
 * A call waiting in an {@link InProcessBulkhead}'s queue. Sync and async callers use the same node: a sync
 * caller parks until its node's fate is decided, an async caller is told through its future.
 *
 * <p>Invariant (see {@link WaiterFate}): a node's fate is decided exactly once, by the compare-and-set of its
 * status from {@link #WAITING} to {@link #GRANTED} (by a releaser, under the bulkhead's lock), {@link #CANCELLED}
 * or {@link #TIMED_OUT} (by whoever gives up on the call, without the lock), or {@link #EVICTED} (by a newer
 * waiter under LIFO, under the lock). The winner of that CAS owns the consequences: a granter's slot now belongs
 * to the node's owner, who must use it or release it; a canceller must unlink the node (if still linked) and
 * report the outcome. The loser does nothing.
 */
abstract class Waiter extends WaiterFate {

    final InProcessBulkhead bulkhead;
    /** Absolute deadline on the bulkhead's ticker; meaningful only when {@link #timed} is true. */
    final long deadline;
    final boolean timed;

    /** The Flight Recorder wait event being timed, or {@code null} when that event is not recorded. */
    final Object recording;

    // Guarded by the bulkhead's lock.
    Waiter previous;
    Waiter next;
    boolean linked;

    Waiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt, long maxWaitNanos) {
        super(signal, enqueuedAt, WAITING);
        this.bulkhead = bulkhead;
        this.timed = maxWaitNanos > 0;
        this.deadline = enqueuedAt + maxWaitNanos;
        this.recording = FlightRecorderEvents.beginWait(bulkhead.name(), bulkhead.queuedCount());
    }

    /** Hands the slot to this waiter if it still waits. Called by releasers under the bulkhead's lock. */
    final boolean tryGrant() {
        return decideIf(WAITING, GRANTED);
    }

    /** Gives up on this waiter if no slot was granted to it yet; the caller then owns its removal. */
    final boolean tryAbandon(int outcome) {
        return decideIf(WAITING, outcome);
    }

    /**
     * Marks a waiter that found a slot free while joining; it was never linked nor published. Set under the lock,
     * before anyone else can see the node, and {@link #grantedOnArrival} is read only by the joining thread. Kept
     * apart from the status on purpose: once a node is linked and the lock released, a releaser may grant it at
     * any moment, so "status is GRANTED" does not tell the joining thread whether it still owns the start of the
     * call (the releaser's {@link #granted()} does).
     */
    final void grantOnArrival() {
        grantedBeforePublication();
    }

    /**
     * Tells the owner that it holds a slot now. Called exactly once, after a successful {@link #tryGrant()},
     * by the granting thread after it released the bulkhead's lock.
     */
    abstract void granted();

    /**
     * Tells the owner that a newer waiter took its place (LIFO). Called once, after a successful
     * {@code tryAbandon(EVICTED)} and the unlinking, by the evicting thread after it released the lock.
     */
    abstract void evicted();
}
