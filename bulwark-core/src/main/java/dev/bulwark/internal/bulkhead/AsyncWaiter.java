package dev.bulwark.internal.bulkhead;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.util.VarHandles;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.timer.OffTimer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * A waiter whose owner is a future: no thread waits. Its fate is decided by the same compare-and-set as a sync
 * waiter's; what differs is only how the owner learns it. Three things may end the wait early, each armed once
 * the node is queued and disarmed once its fate is decided: a timer (maximum wait; on the shared wheel the waiter is
 * its own wheel node), a listener on the cancellation signal, and a callback on the caller's future (the caller
 * cancelled or completed it).
 *
 * <p>Two kinds, which differ only in what a granted waiter starts ({@link #begin()}): {@link ForCall}, a queued
 * {@code callAsync}, and {@link ForPermit}, a queued {@code acquireAsync}.
 */
abstract sealed class AsyncWaiter extends Waiter
        implements Runnable, BiConsumer<Object, Throwable>, WaiterFuture.Owner, GrantDispatch.Delivery
        permits AsyncWaiter.ForCall, AsyncWaiter.ForPermit {

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
     * could be refused for slots nobody held (Lincheck's stress run found it). Now the cancel gives them back itself
     * (before it returns: a signal's listener, or {@link WaiterFuture#cancel}); the delivery finds the claim taken and
     * does nothing. Invariant: exactly one claim succeeds, and only the claimant releases the slots.
     *
     * <p>Once the delivery holds the claim, a second CAS decides between the caller's cancel of the future
     * ({@code DELIVERING -> STOPPED}) and the start of the operation ({@code DELIVERING -> STARTED}, made by the
     * delivery just before it reports the admission and starts anything): exactly one wins. A cancel that wins keeps
     * the operation from running (the delivery, finding the CAS lost, passes the slots on and reports the
     * cancellation); one that comes after the start is a running call's cancel (the future ends cancelled, the
     * operation keeps its slots until its own stage completes). Before this CAS the delivery only read whether the
     * future was done, so a cancel whose {@link #cancelledByCaller} had returned but whose future was not yet
     * completed (or that came from a listener's {@code admitted}) let the operation run for a caller told it would not.
     */
    private volatile int handOver;

    /**
     * Creates a node whose caller is told through {@code callerFuture}.
     *
     * @param forACaller see {@link Waiter#Waiter(Waiter.Room, CancellationSignal, boolean)}
     */
    AsyncWaiter(Room room, CancellationSignal signal, CompletableFuture<?> callerFuture, boolean forACaller) {
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
        // A signal cancelled or a future completed by now, or a cancel that took the hand-over: the caller gave up at
        // the same instant the slot came. Pass the slot on rather than run for nobody.
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
     * the waiter is the task it schedules ({@link #armTimeout}). A waiter whose fate is decided cancels its node, which
     * the wheel unlinks on its next tick: until then the wheel's cancelled stack still reaches the waiter (at most one
     * tick; a separate node would have been held that long instead).
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
     * The timer task of the maximum wait on a scheduler other than a wheel (the waiter is its own task, so arming the
     * timer allocates no method reference): runs on the scheduler's thread, which is where the overflow handler then
     * runs. On the timer thread (the shared wheel) the fate is decided and the node unlinked at the deadline; the
     * refusal, its report and the handler are then handed off ({@link OffTimer}).
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
     * The signal's listener: runs on the cancelling thread. A signal cancelled by a timer (a timeout around the call,
     * a gRPC deadline) leaves the queue at once, and is reported and told off the timer thread.
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
     * A queued {@code callAsync}: once granted, it starts the operation and relays its stage to the caller's future,
     * which is {@link #callerFuture} (not a second field: 8 bytes less per queued call, the object aligns to 88 bytes
     * instead of 96).
     */
    static final class ForCall<T> extends AsyncWaiter {

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
    static final class ForPermit extends AsyncWaiter {

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
        @SuppressWarnings("unchecked") // the caller's future is the CompletableFuture<Permit> the constructor was given
        void begin() {
            Permit permit = room.newPermit(weight);
            if (!((CompletableFuture<Permit>) callerFuture).complete(permit)) {
                // The caller abandoned the future between the check and now: nobody will ever close this permit, and
                // nothing ran under it (no sample for an adaptive limit).
                permit.close(Permit.Outcome.IGNORED);
            }
        }
    }
}
