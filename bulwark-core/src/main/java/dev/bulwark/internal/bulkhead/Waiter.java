package dev.bulwark.internal.bulkhead;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.internal.spi.WaiterFate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A call waiting in an in-process bulkhead's queue. Sync and async callers use the same node: a sync
 * caller parks until its node's fate is decided, an async caller is told through its future. A waiter knows its
 * bulkhead only as a {@link Room}, the few things a wait needs of it (defined here, below the waiters, so that no
 * waiter imports the bulkhead that makes it).
 *
 * <p>Invariant (see {@link WaiterFate}): a node's fate is decided exactly once, by the compare-and-set of its
 * status from {@link #WAITING} to {@link #GRANTED} (by a releaser, under the bulkhead's lock), {@link #CANCELLED}
 * or {@link #TIMED_OUT} (by whoever gives up on the call, without the lock), {@link #EVICTED} (by a newer
 * waiter of a higher priority or under LIFO, under the lock), or {@link #REFUSED} (by a close or a limit lowered
 * below its weight, under the lock, which writes {@link #refusal} before the CAS). The winner of that CAS owns the
 * consequences: a granter's slot now belongs to the node's owner, who must use it or release it; a canceller must
 * unlink the node (if still linked) and report the outcome. The loser does nothing.
 */
abstract class Waiter extends WaiterFate {

    /**
     * What a waiter needs of the bulkhead it waits in: its clock and timer, the queue's joining and leaving, the
     * slots' release, and the reports of a wait's end (listeners, Flight Recorder, the overflow handler). The
     * in-process bulkhead provides it; every method may be called from any thread, none under the queue's lock.
     */
    interface Room {

        /** The bulkhead's name, for the messages of a cancelled wait. */
        String name();

        /** The bulkhead's ticker: a wait's start, end and deadline are read on it. */
        Ticker ticker();

        /** The bulkhead's scheduler, which times an async wait (and a sync one under a fake ticker). */
        Scheduler scheduler();

        /** Starts the Flight Recorder event of a wait; {@code null} when that event is not recorded. */
        Object beginWait();

        /** What listeners reporting in the caller's context capture as a wait starts, or {@code null}. */
        BulkheadEvents.CallerContexts captureCallerContexts();

        /**
         * Queues the waiter, or grants it its slots at once (the slot queue's {@code enqueue}).
         *
         * @return {@code null} when queued or granted on arrival; the rejection when it may not wait
         */
        Rejection enqueue(Waiter waiter);

        /** Unlinks a waiter whose owner won the CAS to CANCELLED or TIMED_OUT, unless a releaser did. */
        void removeAbandoned(Waiter waiter);

        /** Returns slots the waiter holds but will not use. */
        void releaseSlots(int weight);

        /** The failure of a waiter that {@link #enqueue} refused on arrival (reported when the waiter is). */
        RuntimeException refusedOnArrival(Rejection rejection, Waiter waiter);

        /** A waiter granted its slots as it joined: reports the admission, with no wait. */
        void admittedOnArrival(Waiter waiter);

        /** A queued waiter got its slots and will run: reports the admission and the wait. */
        void admitted(Waiter waiter, long waitedNanos);

        /** A queued waiter left without running because its caller gave up: reports it if it is reported. */
        void cancelled(Waiter waiter, long waitedNanos);

        /** A queued waiter was evicted or refused: reports it, runs the overflow handler, makes the exception. */
        BulkheadRejectedException pushedOut(Waiter waiter, long waitedNanos);

        /** A queued waiter reached the maximum wait: reports it, runs the overflow handler, makes the exception. */
        BulkheadRejectedException timedOut(Waiter waiter, long waitedNanos);

        /** A permit for {@code weight} slots that a granted {@code acquireAsync} holds. */
        Permit newPermit(int weight);

        /** Runs a granted async operation that holds {@code weight} slots, relaying its stage to {@code result}. */
        <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result, int weight);
    }

    private static final Priority[] PRIORITIES = Priority.values();
    /** The ordinal of {@link Priority#NORMAL}, the priority of a call made without options. */
    static final int NORMAL = Priority.NORMAL.ordinal();

    /** The bulkhead this node waits in. */
    final Room room;
    /**
     * Absolute deadline on the bulkhead's ticker; meaningful only when {@link #timed} is true. Both are written by
     * {@link #startWaiting} under the lock as the node is linked (so a {@code changeMaxWait} either precedes the
     * whole wait or comes after the node is queued), and read by the owner after {@code enqueue} returns and by the
     * timer armed after that.
     */
    long deadline;
    boolean timed;

    /** The Flight Recorder wait event being timed, or {@code null} when that event is not recorded. */
    final Object recording;
    /**
     * What listeners that report in the caller's context captured on the caller's thread as the call started to wait
     * ({@code dev.bulwark.internal.stats.CallerContextListener}), or {@code null}: its outcome is reported with it,
     * on whichever thread decides it.
     */
    final BulkheadEvents.CallerContexts callerContexts;

    /**
     * How many slots the call takes, and its {@link Priority} ordinal. Written by the joining thread before the
     * node is published (under the lock), never changed afterwards.
     */
    int weight = 1;
    int priority = NORMAL;
    /** Why the node was {@link #REFUSED}: written under the lock before that CAS, read by the owner after it. */
    Rejection.Reason refusal;

    // Guarded by the bulkhead's lock.
    Waiter previous;
    Waiter next;
    boolean linked;
    /** Chains nodes decided under the lock, so that they are told after it is released without a list. */
    Waiter decidedNext;

    /**
     * Creates a node, on the thread of the caller who will wait on it (if any); its wait starts now on the room's
     * ticker.
     *
     * @param forACaller whether a caller waits on this node, on whose thread it is made (so its context is captured);
     *     {@code false} for the bulkhead's own requests (the fair-share pump's), which belong to no caller's trace
     */
    Waiter(Room room, CancellationSignal signal, boolean forACaller) {
        super(signal, room.ticker().read(), WAITING);
        this.room = room;
        this.recording = room.beginWait();
        this.callerContexts = forACaller ? room.captureCallerContexts() : null;
    }

    /**
     * Sets the maximum wait as the bulkhead has it when the node is linked: under the lock, which
     * {@code changeMaxWait} takes too.
     */
    final void startWaiting(long maxWaitNanos) {
        timed = maxWaitNanos > 0;
        deadline = enqueuedAt + maxWaitNanos;
    }

    /** Sets the weight and priority; called by the joining thread before it joins. */
    final void options(int slots, Priority level) {
        this.weight = slots;
        this.priority = level.ordinal();
    }

    /**
     * Whether the bulkhead's overflow handler and listeners hear of this waiter's refusal or cancellation: not for
     * a request the bulkhead's own code makes for nobody in particular (the fair-share pump's request).
     */
    boolean reported() {
        return true;
    }

    /** The priority of an ordinal. */
    static Priority priority(int ordinal) {
        return PRIORITIES[ordinal];
    }

    /** The priority as the public enum. */
    final Priority priorityLevel() {
        return PRIORITIES[priority];
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
     * Tells the owner that it was pushed out of the queue without a slot: a newer waiter took its place
     * ({@link #EVICTED}), or the bulkhead closed or its limit dropped below the weight ({@link #REFUSED}, reason in
     * {@link #refusal}). Called once, after the successful CAS and the unlinking, by the deciding thread after it
     * released the lock.
     *
     * @return whether the owner learns it: {@code false} only for an asynchronous waiter whose caller completed
     *     its future itself in the instant between the decision and this call (it then sees its own outcome; a
     *     cancel cannot do this, see {@link dev.bulwark.internal.spi.WaiterFuture})
     */
    abstract boolean evicted();
}
