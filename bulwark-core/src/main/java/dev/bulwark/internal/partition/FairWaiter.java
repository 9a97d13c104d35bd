package dev.bulwark.internal.partition;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.WaiterFate;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.timer.OffTimer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * One call waiting in {@link FairShares} for a global slot: a future the slot completes, plus the three things that
 * can end the wait early (the maximum wait's timer, the call's cancellation signal, the caller completing or
 * cancelling the future), armed as every bulkhead's waiters arm them ({@link WaiterFate}).
 *
 * <p>Its fate is decided once, by the compare-and-set every bulkhead's waiter is decided by
 * ({@link WaiterFate}: from {@link #WAITING} to {@link #GRANTED}, {@link #TIMED_OUT}, {@link #CANCELLED}, or
 * {@link #REFUSED} on close or by the global bulkhead), made here always under the {@link FairShares} lock together
 * with taking the waiter out of its key's queue: a waiter is in its key's queue exactly while its fate is open, and
 * whoever wins the CAS owns the consequences; every other path finds the fate decided and does nothing. Completing
 * the future happens after the lock is released. A grant that finds the future already completed by the caller
 * gives the slot straight back, so a slot is never lost.
 */
final class FairWaiter extends WaiterFate implements WaiterFuture.Owner {

    final FairShares shares;
    final Partition partition;
    final WaiterFuture<Permit> future = new WaiterFuture<>();
    /** Arrival order across keys, for ties between keys; under the lock. */
    long sequence;

    FairWaiter(FairShares shares, Partition partition, CancellationSignal signal, long enqueuedAt) {
        super(signal, enqueuedAt, WAITING);
        this.shares = shares;
        this.partition = partition;
        future.ownedBy(this);
    }

    /**
     * The caller cancels its future: the cancel decides the fate if it is still open, and stands against a grant
     * not yet delivered (which then passes the slot on); against a timeout or a close decided first it is refused,
     * and the future fails with that refusal (see {@link WaiterFuture}).
     */
    @Override
    public boolean cancelledByCaller() {
        return shares.remove(this, CANCELLED) || status() == GRANTED;
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
                armTimeout(scheduler, maxWaitNanos, this::expire);
            } catch (Throwable schedulerRefused) {
                // Without a timer the wait could outlive its bound: refuse to wait at all instead. Whatever the
                // scheduler threw (an Error too): thrown on, it would leave the waiter queued for nobody.
                if (shares.remove(this, CANCELLED)) {
                    future.completeExceptionally(schedulerRefused);
                }
                return;
            }
        }
        armSignal(this::cancelledBySignal);
        future.whenComplete((permit, failure) -> {
            if (failure != null) {
                shares.remove(this, CANCELLED); // the caller gave up (a no-op when the fate was decided already)
            }
        });
        disarmIfDecided();
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
     * bulkhead's blocking wait ({@code Waiter.Sync}): also when it meets a grant decided at the same instant (the
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
                    if (shares.remove(this, CANCELLED)) {
                        disarm();
                        throw Outcomes.interruptedWhileQueued(shares.globalName());
                    }
                    if (status() == GRANTED) {
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
     * The maximum wait passed, on the timer's thread: decided here, at the deadline; the refusal (with its overflow
     * handler) and the caller's continuations are user code, so they are handed off ({@link OffTimer}).
     */
    @Override
    protected void expire() {
        if (shares.remove(this, TIMED_OUT)) {
            OffTimer.run(() -> fail(shares.timedOut(this)));
        }
    }

    /** The signal's listener, on the cancelling thread (handed off when that is the timer's, as {@link #expire}). */
    private void cancelledBySignal() {
        if (shares.remove(this, CANCELLED)) {
            OffTimer.run(() -> fail(Outcomes.cancelledWhileQueued(shares.globalName(), signal)));
        }
    }
}
