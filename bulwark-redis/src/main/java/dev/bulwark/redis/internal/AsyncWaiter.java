package dev.bulwark.redis.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A waiter whose owner is a future: no thread waits. Three things may end the wait early: a timer (maximum wait,
 * armed once the call is queued), a listener on the cancellation signal and a callback on the caller's future
 * (armed after the acquire was sent, so that any release they send follows it on the connection). Once the fate is
 * decided, {@link #finish()} runs on the bulkhead's executor, never on a Redis I/O thread.
 */
abstract class AsyncWaiter extends RemoteWaiter {

    final CompletableFuture<?> callerFuture;
    private volatile Scheduler.Cancellable timeoutTask;
    private volatile CancellationSignal.Registration registration;

    AsyncWaiter(ClusterBulkhead bulkhead, String id, CancellationSignal signal, long startedAt,
                CompletableFuture<?> callerFuture) {
        super(bulkhead, id, signal, startedAt);
        this.callerFuture = callerFuture;
    }

    /** Runs the work this waiter was queued for, holding {@code permit}; every path must end by closing it. */
    abstract void begin(Permit permit);

    /** Arms cancellation by signal and by the caller's future. Called once, after the acquire was sent. */
    final void armCancellation() {
        if (signal.canBeCancelled()) {
            registration = signal.onCancel(() -> bulkhead.abandon(this, CANCELLED));
        }
        callerFuture.whenComplete((ignoredResult, ignoredFailure) -> bulkhead.abandon(this, CANCELLED));
        if (status > WAITING) {
            disarm();
        }
    }

    @Override
    void nowWaiting() {
        if (maxWaitNanos <= 0) {
            return;
        }
        long remaining = startedAt + maxWaitNanos - bulkhead.ticker().read();
        try {
            timeoutTask = bulkhead.scheduler().schedule(() -> bulkhead.abandon(this, TIMED_OUT), remaining,
                    TimeUnit.NANOSECONDS);
        } catch (RuntimeException schedulerRefused) {
            // Without a timer the wait could outlive its bound: give up now rather than wait forever.
            bulkhead.abandon(this, TIMED_OUT);
            return;
        }
        if (status > WAITING) {
            disarm();
        }
    }

    @Override
    final void decided() {
        bulkhead.dispatch(this::finish);
    }

    private void disarm() {
        Scheduler.Cancellable task = timeoutTask;
        if (task != null) {
            task.cancel();
        }
        CancellationSignal.Registration current = registration;
        if (current != null) {
            current.close();
        }
    }

    private void finish() {
        disarm();
        bulkhead.finishAsync(this);
    }
}
