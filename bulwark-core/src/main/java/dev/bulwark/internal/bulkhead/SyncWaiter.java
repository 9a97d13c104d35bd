package dev.bulwark.internal.bulkhead;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.SystemTime;
import dev.bulwark.internal.spi.Outcomes;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A waiter whose owner is a thread parked on it. {@link #await} is the whole synchronous wait: join the queue,
 * park until the node's fate is decided (granted, timed out, cancelled by the signal or an interrupt, evicted or
 * refused),
 * then act on it. The parked thread times its own maximum wait, so a sync wait needs no timer task (but under a
 * test's fake ticker, see {@link #wakeOnTheSchedulerUnderAFakeTicker}).
 */
final class SyncWaiter extends Waiter implements Runnable {

    final Thread thread;

    SyncWaiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt) {
        super(bulkhead, signal, enqueuedAt);
        this.thread = Thread.currentThread();
    }

    /**
     * Waits for a slot of {@code bulkhead} on the calling thread; returns holding it, or throws.
     *
     * @throws dev.bulwark.BulkheadRejectedException when the queue is full, the maximum wait passed or a newer
     *     waiter evicted this one
     * @throws java.util.concurrent.CancellationException when the signal was cancelled or the thread interrupted
     *     (its interrupt status is then kept)
     */
    static void await(InProcessBulkhead bulkhead, CancellationSignal signal) {
        await(bulkhead, signal, 1, Priority.NORMAL);
    }

    /** {@link #await(InProcessBulkhead, CancellationSignal)} for {@code weight} slots at {@code priority}. */
    static void await(InProcessBulkhead bulkhead, CancellationSignal signal, int weight, Priority priority) {
        // A thread interrupted before it comes is not refused here: it may find the bulkhead closed, the queue full
        // (those refusals, with their handler and listeners, come first) or a slot free, as on the lock-free path;
        // only once queued does its interrupt end the wait, at the first park (which returns at once).
        SyncWaiter waiter = new SyncWaiter(bulkhead, signal, bulkhead.ticker().read());
        waiter.options(weight, priority);
        Rejection rejection = bulkhead.enqueue(waiter);
        if (rejection != null) {
            throw bulkhead.refusedOnArrival(rejection, weight);
        }
        if (waiter.grantedOnArrival) {
            bulkhead.reportAdmitted(0, waiter.priorityLevel());
            return;
        }
        GrantDispatch.runPendingBeforeBlocking();
        CancellationSignal.Registration registration = signal.canBeCancelled() ? signal.onCancel(waiter) : null;
        boolean interrupted = false;
        Scheduler.Cancellable wake = null;
        try {
            while (waiter.status() == Waiter.WAITING) {
                if (waiter.timed) {
                    long remaining = waiter.deadline - bulkhead.ticker().read();
                    if (remaining <= 0L) {
                        if (waiter.tryAbandon(Waiter.TIMED_OUT)) {
                            bulkhead.removeAbandoned(waiter);
                        }
                        continue;
                    }
                    wake = wakeOnTheSchedulerUnderAFakeTicker(bulkhead, waiter, wake, remaining);
                    LockSupport.parkNanos(bulkhead, remaining);
                } else {
                    LockSupport.park(bulkhead);
                }
                if (Thread.interrupted()) {
                    interrupted = true;
                    if (waiter.tryAbandon(Waiter.CANCELLED)) {
                        bulkhead.removeAbandoned(waiter);
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
        long waited = bulkhead.ticker().read() - waiter.enqueuedAt;
        int fate = waiter.status();
        if (fate == Waiter.GRANTED && !interrupted && !signal.isCancelled()) {
            bulkhead.waiterAdmitted(waiter, waited);
            return;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (fate == Waiter.TIMED_OUT) {
            throw bulkhead.waiterTimedOut(waiter, waited);
        }
        if (fate == Waiter.EVICTED || fate == Waiter.REFUSED) {
            throw bulkhead.waiterEvicted(waiter, waited);
        }
        if (fate == Waiter.GRANTED) {
            // Granted at the same instant the caller gave up: pass the slot on instead of running for nobody.
            bulkhead.releaseSlots(waiter.weight);
        }
        bulkhead.waiterCancelled(waiter, waited);
        throw interrupted ? Outcomes.interruptedWhileQueued(bulkhead.name)
                : Outcomes.cancelledWhileQueued(bulkhead.name, signal);
    }

    /**
     * Under a ticker other than the system's (a test's fake one), parking for {@code remaining} real nanoseconds
     * would not notice the ticker passing the deadline, so the bulkhead's scheduler (a test's manual one, driven
     * with the ticker) also wakes the thread at the deadline; the thread then reads the ticker again. Re-armed at
     * each wake-up, since the ticker may have moved by less. The task only unparks: no user code on the timer. A
     * scheduler that refuses leaves the real-time park, as under the system ticker.
     *
     * @return the armed wake-up, or {@code null} under the system ticker
     */
    private static Scheduler.Cancellable wakeOnTheSchedulerUnderAFakeTicker(InProcessBulkhead bulkhead,
            SyncWaiter waiter, Scheduler.Cancellable previous, long remaining) {
        if (bulkhead.ticker() == SystemTime.TICKER) {
            return null;
        }
        if (previous != null) {
            previous.cancel();
        }
        Thread thread = waiter.thread;
        try {
            return bulkhead.scheduler().schedule(() -> LockSupport.unpark(thread), remaining, TimeUnit.NANOSECONDS);
        } catch (RuntimeException | Error refused) {
            // An Error too: thrown on from here it would leave this waiter queued for nobody (a later grant would
            // leak its slots). The wake-up only serves a fake ticker; the real-time park still bounds the wait.
            return null;
        }
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
            bulkhead.removeAbandoned(this);
            LockSupport.unpark(thread);
        }
    }
}
