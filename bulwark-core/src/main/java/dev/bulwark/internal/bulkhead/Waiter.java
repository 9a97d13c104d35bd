package dev.bulwark.internal.bulkhead;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.internal.spi.FakeTickerWakeUp;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.WaiterFate;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.timer.OffTimer;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A call waiting in an in-process bulkhead's queue, and the whole of its wait. Sync and async callers use the same
 * node and differ only in how the owner learns its fate: a {@link Sync} waiter's thread parks until the fate is
 * decided, an {@link Async} waiter's caller is told through its future. The hierarchy is sealed and kept in this one
 * file because it is one idea, the wait: a reader following a queued call, sync or async, reads it here. A waiter
 * knows its bulkhead only as a {@link Room}, the few things a wait needs of it (defined here, below the waiters, so
 * that no waiter imports the bulkhead that makes it).
 *
 * <p>Invariant (see {@link WaiterFate}): a node's fate is decided exactly once, by the compare-and-set of its
 * status from {@link #WAITING} to {@link #GRANTED} (by a releaser, under the bulkhead's lock), {@link #CANCELLED}
 * or {@link #TIMED_OUT} (by whoever gives up on the call, without the lock), {@link #EVICTED} (by a newer
 * waiter of a higher priority or under LIFO, under the lock), or {@link #REFUSED} (by a close or a limit lowered
 * below its weight, under the lock, which writes {@link #refusal} before the CAS). The winner of that CAS owns the
 * consequences: a granter's slot now belongs to the node's owner, who must use it or release it; a canceller must
 * unlink the node (if still linked) and report the outcome. The loser does nothing.
 */
abstract sealed class Waiter extends WaiterFate permits Waiter.Sync, Waiter.Async {

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

    /**
     * A waiter whose owner is a thread parked on it. {@link #await} is the whole synchronous wait: join the queue,
     * park until the node's fate is decided (granted, timed out, cancelled by the signal or an interrupt, evicted or
     * refused),
     * then act on it. The parked thread times its own maximum wait, so a sync wait needs no timer task (but under a
     * test's fake ticker, see {@link FakeTickerWakeUp}).
     */
    static final class Sync extends Waiter implements Runnable {

        final Thread thread;

        private Sync(Room room, CancellationSignal signal) {
            super(room, signal, true);
            this.thread = Thread.currentThread();
        }

        /**
         * Waits for {@code weight} slots at {@code priority} of the bulkhead {@code room} belongs to, on the calling
         * thread; returns holding them, or throws.
         *
         * @throws dev.bulwark.BulkheadRejectedException when the queue is full, the maximum wait passed or a newer
         *     waiter evicted this one
         * @throws java.util.concurrent.CancellationException when the signal was cancelled or the thread interrupted
         *     (its interrupt status is then kept)
         */
        static void await(Room room, CancellationSignal signal, int weight, Priority priority) {
            // A thread interrupted before it comes is not refused here: it may find the bulkhead closed, the queue full
            // (those refusals, with their handler and listeners, come first) or a slot free, as on the lock-free path;
            // only once queued does its interrupt end the wait, at the first park (which returns at once).
            Sync waiter = new Sync(room, signal);
            waiter.options(weight, priority);
            Rejection rejection = room.enqueue(waiter);
            if (rejection != null) {
                throw room.refusedOnArrival(rejection, waiter);
            }
            if (waiter.grantedOnArrival) {
                room.admittedOnArrival(waiter);
                return;
            }
            GrantDispatch.runPendingBeforeBlocking();
            CancellationSignal.Registration registration = signal.canBeCancelled() ? signal.onCancel(waiter) : null;
            boolean interrupted = false;
            Scheduler.Cancellable wake = null;
            try {
                while (waiter.status() == Waiter.WAITING) {
                    if (waiter.timed) {
                        long remaining = waiter.deadline - room.ticker().read();
                        if (remaining <= 0L) {
                            if (waiter.tryAbandon(Waiter.TIMED_OUT)) {
                                room.removeAbandoned(waiter);
                            }
                            continue;
                        }
                        wake = FakeTickerWakeUp.rearm(room.ticker(), room.scheduler(), waiter.thread, wake, remaining);
                        LockSupport.parkNanos(room, remaining);
                    } else {
                        LockSupport.park(room);
                    }
                    if (Thread.interrupted()) {
                        interrupted = true;
                        if (waiter.tryAbandon(Waiter.CANCELLED)) {
                            room.removeAbandoned(waiter);
                        }
                    }
                }
            } finally {
                if (registration != null) {
                    registration.close();
                }
                if (wake != null) {
                    wake.cancel();
                }
            }
            long waited = room.ticker().read() - waiter.enqueuedAt;
            int fate = waiter.status();
            if (fate == Waiter.GRANTED && !interrupted && !signal.isCancelled()) {
                room.admitted(waiter, waited);
                return;
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (fate == Waiter.TIMED_OUT) {
                throw room.timedOut(waiter, waited);
            }
            if (fate == Waiter.EVICTED || fate == Waiter.REFUSED) {
                throw room.pushedOut(waiter, waited);
            }
            if (fate == Waiter.GRANTED) {
                // Granted at the same instant the caller gave up: pass the slot on instead of running for nobody.
                room.releaseSlots(waiter.weight);
            }
            room.cancelled(waiter, waited);
            throw interrupted ? Outcomes.interruptedWhileQueued(room.name())
                    : Outcomes.cancelledWhileQueued(room.name(), signal);
        }

        @Override
        void granted() {
            LockSupport.unpark(thread);
        }

        @Override
        boolean evicted() {
            // The owner builds the rejection and runs the handler on its own thread when it wakes.
            LockSupport.unpark(thread);
            return true;
        }

        /** The signal's cancellation listener: runs on the cancelling thread. */
        @Override
        public void run() {
            if (tryAbandon(CANCELLED)) {
                room.removeAbandoned(this);
                LockSupport.unpark(thread);
            }
        }
    }

    /**
     * A waiter whose owner is a future: no thread waits. Its fate is decided by the same compare-and-set as a sync
     * waiter's; what differs is only how the owner learns it. Three things may end the wait early, each armed once
     * the node is queued and disarmed once its fate is decided: a timer (maximum wait; on the shared wheel the waiter
     * is its own wheel node), a listener on the cancellation signal, and a callback on the caller's future (the caller
     * cancelled or completed it).
     *
     * <p>Two kinds, which differ only in what a granted waiter starts ({@link #begin()}): {@link ForCall}, a queued
     * {@code callAsync}, and {@link ForPermit}, a queued {@code acquireAsync}.
     */
    abstract static sealed class Async extends Waiter
            implements Runnable, BiConsumer<Object, Throwable>, WaiterFuture.Owner, GrantDispatch.Delivery
            permits Async.ForCall, Async.ForPermit {

        private static final VarHandle HAND_OVER = VarHandles.field(MethodHandles.lookup(), "handOver", int.class);
        /** {@link #handOver}: the delivery of a grant has started; it owns the slots from here. */
        private static final int DELIVERING = 1;
        /** {@link #handOver}: the caller gave up after the grant, before its delivery, and gave the slots back. */
        private static final int GIVEN_BACK = 2;
        /**
         * {@link #handOver}: the delivery started the operation (or handed the permit over); a cancel now is a running
         * call's.
         */
        private static final int STARTED = 3;
        /** {@link #handOver}: the caller cancelled the future during the delivery, before it started anything. */
        private static final int STOPPED = 4;

        /** The caller's future; subclasses complete it with their own result type. */
        final CompletableFuture<?> callerFuture;

        /**
         * Who owns the slots of a granted waiter: 0 until one CAS claims them, by {@link #startGranted()} (delivery) or
         * by the caller giving up in the meantime ({@link #giveBackUndelivered()}). Why: a grant is decided under the
         * lock and delivered after it, possibly after other grants; a caller that cancels in between used to see its
         * cancel return while the slots stayed held until the delivery reached it, so a call arriving after the cancel
         * could be refused for slots nobody held (Lincheck's stress run found it). Now the cancel gives them back
         * itself (before it returns: a signal's listener, or {@link WaiterFuture#cancel}); the delivery finds the claim
         * taken and does nothing. Invariant: exactly one claim succeeds, and only the claimant releases the slots.
         *
         * <p>Once the delivery holds the claim, a second CAS decides between the caller's cancel of the future
         * ({@code DELIVERING -> STOPPED}) and the start of the operation ({@code DELIVERING -> STARTED}, made by the
         * delivery just before it reports the admission and starts anything): exactly one wins. A cancel that wins
         * keeps the operation from running (the delivery, finding the CAS lost, passes the slots on and reports the
         * cancellation); one that comes after the start is a running call's cancel (the future ends cancelled, the
         * operation keeps its slots until its own stage completes). Before this CAS the delivery only read whether the
         * future was done, so a cancel whose {@link #cancelledByCaller} had returned but whose future was not yet
         * completed (or that came from a listener's {@code admitted}) let the operation run for a caller told it would
         * not.
         */
        private volatile int handOver;

        /**
         * Creates a node whose caller is told through {@code callerFuture}.
         *
         * @param forACaller see {@link Waiter#Waiter(Waiter.Room, CancellationSignal, boolean)}
         */
        Async(Room room, CancellationSignal signal, CompletableFuture<?> callerFuture, boolean forACaller) {
            super(room, signal, forACaller);
            this.callerFuture = callerFuture;
            if (callerFuture instanceof WaiterFuture) {
                ((WaiterFuture<?>) callerFuture).ownedBy(this);
            }
        }

        /** Runs the work this waiter was queued for. The waiter holds a slot; every path must end by releasing it. */
        abstract void begin();

        @Override
        final void granted() {
            GrantDispatch.dispatch(this);
        }

        /** Called by {@link GrantDispatch} on the granting thread, outside any lock. */
        @Override
        public final void startGranted() {
            long waited = room.ticker().read() - enqueuedAt;
            // Claimed before disarming, so that a signal cancelled until the claim still reaches giveBackUndelivered.
            // The caller is checked after the disarm (which runs a scheduler's cancel, foreign code that may itself
            // cancel), and a cancel of the future from then on meets the DELIVERING -> STARTED CAS (see handOver).
            if (!HAND_OVER.compareAndSet(this, 0, DELIVERING)) {
                disarm();
                return; // the caller gave up after the grant and has given the slots back
            }
            disarm();
            // A signal cancelled or a future completed by now, or a cancel that took the hand-over: the caller gave up
            // at the same instant the slot came. Pass the slot on rather than run for nobody.
            if (signal.isCancelled() || callerFuture.isDone() || !HAND_OVER.compareAndSet(this, DELIVERING, STARTED)) {
                room.releaseSlots(weight);
                room.cancelled(this, waited);
                callerFuture.completeExceptionally(Outcomes.cancelledWhileQueued(room.name(), signal));
                return;
            }
            room.admitted(this, waited);
            begin();
        }

        /**
         * Arms the three ways the wait can end early. Called once, by the queuing thread, after linking. On a timing
         * wheel the waiter is its own timer node, so arming the maximum wait allocates nothing; with another scheduler
         * the waiter is the task it schedules ({@link #armTimeout}). A waiter whose fate is decided cancels its node,
         * which the wheel unlinks on its next tick: until then the wheel's cancelled stack still reaches the waiter (at
         * most one tick; a separate node would have been held that long instead).
         */
        final void arm(Scheduler scheduler) {
            if (timed) {
                try {
                    armTimeout(scheduler, deadline - room.ticker().read(), this);
                } catch (Throwable schedulerRefused) {
                    // Without a timer the wait could outlive its bound; refuse to wait at all instead. Whatever the
                    // scheduler threw (an Error too): thrown on, it would leave the waiter queued for nobody.
                    if (tryAbandon(CANCELLED)) {
                        room.removeAbandoned(this);
                        room.cancelled(this, room.ticker().read() - enqueuedAt);
                        callerFuture.completeExceptionally(schedulerRefused);
                    }
                    return;
                }
            }
            armSignal(this::cancelledBySignal);
            callerFuture.whenComplete(this);
            disarmIfDecided();
        }

        @Override
        final boolean evicted() {
            disarm();
            long waited = room.ticker().read() - enqueuedAt;
            return callerFuture.completeExceptionally(room.pushedOut(this, waited));
        }

        /** The maximum wait passed, the waiter being its own wheel node: on the wheel's thread, as {@link #run()}. */
        @Override
        protected final void expire() {
            run();
        }

        /**
         * The timer task of the maximum wait on a scheduler other than a wheel (the waiter is its own task, so arming
         * the timer allocates no method reference): runs on the scheduler's thread, which is where the overflow handler
         * then runs. On the timer thread (the shared wheel) the fate is decided and the node unlinked at the deadline;
         * the refusal, its report and the handler are then handed off ({@link OffTimer}).
         */
        @Override
        public final void run() {
            if (tryAbandon(TIMED_OUT)) {
                room.removeAbandoned(this);
                disarm();
                long waited = room.ticker().read() - enqueuedAt;
                OffTimer.run(() -> callerFuture.completeExceptionally(room.timedOut(this, waited)));
            }
        }

        /**
         * The signal's listener: runs on the cancelling thread. A signal cancelled by a timer (a timeout around the
         * call, a gRPC deadline) leaves the queue at once, and is reported and told off the timer thread.
         */
        private void cancelledBySignal() {
            if (leave()) {
                long waited = room.ticker().read() - enqueuedAt;
                OffTimer.run(() -> {
                    room.cancelled(this, waited);
                    callerFuture.completeExceptionally(Outcomes.cancelledWhileQueued(room.name(), signal));
                });
            }
        }

        /**
         * The caller's future completed (the waiter is its own callback, so arming allocates no lambda): by the caller,
         * or by the bulkhead (a grant's delivery, which claimed the slots first; a timeout, eviction, refusal or signal
         * cancel, which decided the fate first), so nothing is given back then.
         */
        @Override
        public final void accept(Object ignoredResult, Throwable ignoredFailure) {
            leaveForCaller();
        }

        /**
         * The caller cancels its {@link WaiterFuture}: decides the fate as cancelled if it is still open (then the
         * cancel proceeds and {@link #accept} finds nothing more to do), or gives back a grant not yet delivered.
         *
         * @return whether the future may be cancelled; {@code false} when the fate was decided elsewhere first (a
         *     timeout, an eviction, a refusal), which the future then completes with
         */
        @Override
        public final boolean cancelledByCaller() {
            if (grantedOnArrival) {
                return true; // never queued: its slots belong to the running call, which releases them
            }
            if (leaveForCaller()) {
                return true;
            }
            // A grant whose delivery is under way: stop it if it has not started the operation (it then gives the slots
            // back and reports the cancellation); once started, the cancel is a running call's, which stands.
            return HAND_OVER.compareAndSet(this, DELIVERING, STOPPED) || handOver == STARTED;
        }

        /**
         * The caller gives up: decides the fate as cancelled if it is still open (and unlinks the node), or gives back
         * a grant not yet delivered; then reports the cancellation.
         *
         * @return whether the caller's giving up took effect (otherwise the fate was decided first, and stands)
         */
        private boolean leaveForCaller() {
            if (!leave()) {
                return false;
            }
            long waited = room.ticker().read() - enqueuedAt;
            // On the timer thread when a per-key wait timing out cancels the global waiter it no longer needs.
            OffTimer.run(() -> room.cancelled(this, waited));
            return true;
        }

        /**
         * The decision of {@link #leaveForCaller()} without its report: decides the fate as cancelled and unlinks the
         * node, or gives back a grant not yet delivered.
         */
        private boolean leave() {
            if (tryAbandon(CANCELLED)) {
                room.removeAbandoned(this);
                disarm();
                return true;
            }
            return giveBackUndelivered();
        }

        /**
         * The caller gave up after a releaser granted this waiter its slots but before the grant's delivery started:
         * claims the slots and releases them now, on the thread that cancels, so that once its cancel returns they are
         * free or granted to the next waiter.
         * Once the delivery has started, it owns them (and releases them itself when it finds the caller gone).
         *
         * @return whether this call gave the slots back
         */
        private boolean giveBackUndelivered() {
            if (status() != GRANTED || !HAND_OVER.compareAndSet(this, 0, GIVEN_BACK)) {
                return false;
            }
            room.releaseSlots(weight);
            return true;
        }

        /**
         * A queued {@code callAsync}: once granted, it starts the operation and relays its stage to the caller's
         * future, which is {@link #callerFuture} (not a second field: 8 bytes less per queued call, the object aligns
         * to 88 bytes instead of 96).
         */
        static final class ForCall<T> extends Async {

            private final Supplier<? extends CompletionStage<T>> operation;

            ForCall(Room room, CancellationSignal signal, Supplier<? extends CompletionStage<T>> operation,
                    CompletableFuture<T> result) {
                super(room, signal, result, true);
                this.operation = operation;
            }

            @Override
            @SuppressWarnings("unchecked") // the caller's future is the CompletableFuture<T> the constructor was given
            void begin() {
                room.startAsync(operation, (CompletableFuture<T>) callerFuture, weight);
            }
        }

        /**
         * A queued {@code acquireAsync}: once granted, it completes the caller's future with a permit. One made for
         * nobody in particular (the fair-share pump's request) is not {@link #reported}.
         */
        static final class ForPermit extends Async {

            private final boolean reported;

            /**
             * Creates the node of an {@code acquireAsync} whose caller is told through {@code future}.
             *
             * @param reported whether the bulkhead's overflow handler and listeners hear of a refusal or cancellation
             *     (an admission is always reported: a call holds the slot)
             */
            ForPermit(Room room, CancellationSignal signal, CompletableFuture<Permit> future, boolean reported) {
                super(room, signal, future, reported);
                this.reported = reported;
            }

            @Override
            boolean reported() {
                return reported;
            }

            @Override
            @SuppressWarnings("unchecked") // the caller's future is the CompletableFuture<Permit> it was given
            void begin() {
                Permit permit = room.newPermit(weight);
                if (!((CompletableFuture<Permit>) callerFuture).complete(permit)) {
                    // The caller abandoned the future between the check and now: nobody will ever close this permit,
                    // and nothing ran under it (no sample for an adaptive limit).
                    permit.close(Permit.Outcome.IGNORED);
                }
            }
        }
    }
}
