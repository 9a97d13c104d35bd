package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A call waiting in an {@link InProcessBulkhead}'s queue. Sync and async callers use the same node: a sync
 * caller parks until its node's fate is decided, an async caller is told through its future.
 *
 * <p>Invariant: a node's fate is decided exactly once, by the compare-and-set of {@link #status} from
 * {@link #WAITING} to {@link #GRANTED} (by a releaser, under the bulkhead's lock), {@link #CANCELLED} or
 * {@link #TIMED_OUT} (by whoever gives up on the call, without the lock), or {@link #EVICTED} (by a newer waiter
 * under LIFO, under the lock). The winner of that CAS owns the
 * consequences: a granter's slot now belongs to the node's owner, who must use it or release it; a canceller
 * must unlink the node (if still linked) and report the outcome. The loser does nothing.
 */
abstract class Waiter {

    static final int WAITING = 0;
    static final int GRANTED = 1;
    static final int CANCELLED = 2;
    static final int TIMED_OUT = 3;
    static final int EVICTED = 4;

    private static final VarHandle STATUS;

    static {
        try {
            STATUS = MethodHandles.lookup().findVarHandle(Waiter.class, "status", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final InProcessBulkhead bulkhead;
    final CancellationSignal signal;
    /** Ticker reading when the call started waiting, for the wait duration and the deadline. */
    final long enqueuedAt;
    /** Absolute deadline on the bulkhead's ticker; meaningful only when {@link #timed} is true. */
    final long deadline;
    final boolean timed;

    volatile int status;

    /** The Flight Recorder wait event being timed, or {@code null} when that event is not recorded. */
    final Object recording;

    // Guarded by the bulkhead's lock.
    Waiter previous;
    Waiter next;
    boolean linked;

    Waiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt, long maxWaitNanos) {
        this.bulkhead = bulkhead;
        this.signal = signal;
        this.enqueuedAt = enqueuedAt;
        this.timed = maxWaitNanos > 0;
        this.deadline = enqueuedAt + maxWaitNanos;
        this.recording = FlightRecorderEvents.beginWait(bulkhead.name(), bulkhead.queuedCount());
    }

    /** Hands the slot to this waiter if it still waits. Called by releasers under the bulkhead's lock. */
    final boolean tryGrant() {
        return STATUS.compareAndSet(this, WAITING, GRANTED);
    }

    /** Gives up on this waiter if no slot was granted to it yet; the caller then owns its removal. */
    final boolean tryAbandon(int outcome) {
        return STATUS.compareAndSet(this, WAITING, outcome);
    }

    /**
     * Set (under the lock, before anyone else can see the node) when a slot was free by the time the waiter tried
     * to join, so it was granted without being queued. Read only by the joining thread. Kept apart from
     * {@link #status} on purpose: once a node is linked and the lock released, a releaser may grant it at any
     * moment, so "status is GRANTED" does not tell the joining thread whether it still owns the start of the call
     * (the releaser's {@link #granted()} does).
     */
    boolean grantedOnArrival;

    /** Marks a waiter that found a slot free while joining; it was never linked nor published. */
    final void grantOnArrival() {
        grantedOnArrival = true;
        status = GRANTED;
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
