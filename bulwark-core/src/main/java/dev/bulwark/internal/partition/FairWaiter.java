package dev.bulwark.internal.partition;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.timer.OffTimer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One call waiting in {@link FairShares} for a global slot: a future the slot completes, plus the three things that
 * can end the wait early (the maximum wait's timer, the call's cancellation signal, the caller completing or
 * cancelling the future).
 *
 * <p>Whoever takes the waiter out of its key's queue under the {@link FairShares} lock decides its fate (granted,
 * timed out, cancelled, refused on close); every other path then finds it gone and does nothing. Completing the
 * future happens after the lock is released. A grant that finds the future already completed by the caller gives
 * the slot straight back, so a slot is never lost.
 */
final class FairWaiter implements WaiterFuture.Owner {

    final FairShares shares;
    final Partition partition;
    final CancellationSignal signal;
    final long enqueuedAt;
    final WaiterFuture<Permit> future = new WaiterFuture<>();
    /** Arrival order across keys, for ties between keys; under the lock. */
    long sequence;
    /** Whether the waiter is in its key's queue; under the lock. */
    boolean queued;
    /**
     * Set under the lock by the pump that takes the waiter out of its queue to grant it a slot, so that a cancel
     * arriving before the grant's delivery knows the fate is a grant (its slot is then passed on by {@link #grant}).
     */
    volatile boolean grantDecided;

    private volatile Scheduler.@Nullable Cancellable timer;
    private volatile CancellationSignal.@Nullable Registration registration;

    FairWaiter(FairShares shares, Partition partition, CancellationSignal signal, long enqueuedAt) {
        this.shares = shares;
        this.partition = partition;
        this.signal = signal;
        this.enqueuedAt = enqueuedAt;
        future.ownedBy(this);
    }

    /**
     * The caller cancels its future: the cancel decides the fate if the waiter is still queued, and stands against
     * a grant not yet delivered (which then passes the slot on); against a timeout or a close decided first it is
     * refused, and the future fails with that refusal (see {@link WaiterFuture}).
     */
    @Override
    public boolean cancelledByCaller() {
        return shares.remove(this) || grantDecided;
    }

    /**
     * Arms the early ends of the wait. Called once by the queuing thread, after the waiter is queued.
     *
     * @param scheduler the timer for the maximum wait
     * @param maxWaitNanos the maximum wait, or 0 for none ({@link dev.bulwark.internal.util.Arguments#boundedNanos})
     */
    void arm(Scheduler scheduler, long maxWaitNanos) {
        if (maxWaitNanos > 0) {
            try {
                timer = scheduler.schedule(this::timeOut, maxWaitNanos, TimeUnit.NANOSECONDS);
            } catch (Throwable schedulerRefused) {
                // Without a timer the wait could outlive its bound: refuse to wait at all instead. Whatever the
                // scheduler threw (an Error too): thrown on, it would leave the waiter queued for nobody.
                if (shares.remove(this)) {
                    future.completeExceptionally(schedulerRefused);
                }
                return;
            }
        }
        if (signal.canBeCancelled()) {
            registration = signal.onCancel(this::cancelledBySignal);
        }
        future.whenComplete((permit, failure) -> {
            if (failure != null) {
                shares.remove(this); // the caller gave up (a no-op when the waiter's fate was decided already)
            }
        });
        if (future.isDone()) {
            disarm();
        }
    }

    /**
     * Hands the waiter its slot; the waiter was taken out of the queue by the caller.
     *
     * @param permit the slot
     */
    void grant(Permit permit) {
        disarm();
        if (!future.complete(permit)) {
            permit.close(Permit.Outcome.IGNORED); // the caller gave up at that very moment: pass the slot on
        }
    }

    /**
     * Ends the wait with a failure; the waiter was taken out of the queue by the caller.
     *
     * @param failure what the caller sees
     * @return whether the caller learnt this failure (not when it had cancelled its future at the same instant)
     */
    boolean fail(Throwable failure) {
        disarm();
        return future.completeExceptionally(failure);
    }

    /**
     * Blocks the calling thread until the wait ends. An interrupt while queued ends the wait, as in a plain
     * bulkhead's blocking wait ({@code SyncWaiter}): also when it meets a grant decided at the same instant (the
     * pump took the waiter out of its queue, or even delivered the slot before the thread woke), whose slot is
     * then passed on rather than run for a caller that was interrupted.
     *
     * @return the global slot
     * @throws dev.bulwark.BulkheadRejectedException when refused (queue full, maximum wait, closed)
     * @throws CancellationException when cancelled or interrupted (the interrupt status is kept)
     */
    Permit await() {
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    Permit permit = future.get();
                    if (!Thread.currentThread().isInterrupted()) {
                        return permit;
                    }
                    // Interrupted while the grant completed the future (get() then returns with the flag set).
                    interrupted = true;
                    permit.close(Permit.Outcome.IGNORED); // nothing ran: pass the slot on
                    throw Outcomes.interruptedWhileQueued(shares.globalName());
                } catch (InterruptedException e) {
                    interrupted = true;
                    if (shares.remove(this)) {
                        disarm();
                        throw Outcomes.interruptedWhileQueued(shares.globalName());
                    }
                    if (grantDecided) {
                        passOnGrant();
                        throw Outcomes.interruptedWhileQueued(shares.globalName());
                    }
                    // A refusal decided at this instant by another thread: take it (the loop throws it).
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException) {
                        throw (RuntimeException) cause;
                    }
                    if (cause instanceof Error) {
                        throw (Error) cause;
                    }
                    throw new IllegalStateException("waiting for a global slot failed", cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Gives back the slot of a grant decided for this waiter, delivered or not: cancelling the future before the
     * delivery makes {@link #grant} close the slot; after it, the slot is in the future and is closed here.
     */
    private void passOnGrant() {
        disarm();
        if (!future.cancel(false) && !future.isCompletedExceptionally()) {
            future.join().close(Permit.Outcome.IGNORED); // nothing ran
        }
    }

    /**
     * The maximum wait passed: decided here, at the deadline; the refusal (with its overflow handler) and the
     * caller's continuations are user code, so on the timer thread they are handed off ({@link OffTimer}).
     */
    private void timeOut() {
        if (shares.remove(this)) {
            OffTimer.run(() -> fail(shares.timedOut(this)));
        }
    }

    /** The signal's listener, on the cancelling thread (handed off when that is the timer's, as {@link #timeOut}). */
    private void cancelledBySignal() {
        if (shares.remove(this)) {
            OffTimer.run(() -> fail(Outcomes.cancelledWhileQueued(shares.globalName(), signal)));
        }
    }

    private void disarm() {
        Scheduler.Cancellable armedTimer = timer;
        if (armedTimer != null) {
            armedTimer.cancel();
        }
        CancellationSignal.Registration armedRegistration = registration;
        if (armedRegistration != null) {
            armedRegistration.close();
        }
    }
}
