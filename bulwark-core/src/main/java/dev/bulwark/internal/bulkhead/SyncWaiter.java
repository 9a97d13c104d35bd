package dev.bulwark.internal.bulkhead;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.spi.FakeTickerWakeUp;
import dev.bulwark.internal.spi.Outcomes;
import java.util.concurrent.locks.LockSupport;

/**
 * A waiter whose owner is a thread parked on it. {@link #await} is the whole synchronous wait: join the queue,
 * park until the node's fate is decided (granted, timed out, cancelled by the signal or an interrupt, evicted or
 * refused),
 * then act on it. The parked thread times its own maximum wait, so a sync wait needs no timer task (but under a
 * test's fake ticker, see {@link FakeTickerWakeUp}).
 */
final class SyncWaiter extends Waiter implements Runnable {

    final Thread thread;

    private SyncWaiter(Room room, CancellationSignal signal) {
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
        SyncWaiter waiter = new SyncWaiter(room, signal);
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
