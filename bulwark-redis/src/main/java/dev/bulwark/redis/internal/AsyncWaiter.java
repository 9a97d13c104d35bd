package dev.bulwark.redis.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.internal.spi.WaiterFuture;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A waiter whose owner is a future: no thread waits. Three things may end the wait early: a timer (maximum wait,
 * armed once the call is queued), a listener on the cancellation signal and a callback on the caller's future
 * (armed after the acquire was sent, so that any release they send follows it on the connection). Once the fate is
 * decided, {@link #finish()} runs on the bulkhead's executor, never on a Redis I/O thread.
 */
abstract class AsyncWaiter extends RemoteWaiter implements WaiterFuture.Owner {

    final CompletableFuture<?> callerFuture;

    AsyncWaiter(ClusterBulkhead bulkhead, String id, int weight, Priority priority, CancellationSignal signal,
                long enqueuedAt, CompletableFuture<?> callerFuture) {
        super(bulkhead, id, weight, priority, signal, enqueuedAt);
        this.callerFuture = callerFuture;
        if (callerFuture instanceof WaiterFuture) {
            ((WaiterFuture<?>) callerFuture).ownedBy(this);
        }
    }

    /**
     * The caller cancels its future ({@link WaiterFuture}): the cancel decides the fate if it is still open, and
     * stands against a grant (whose permit {@link #finish()} then passes on) and, failing open, against an
     * unavailable Redis (the call would run without a permit: it runs nothing instead); against a refusal, a
     * timeout or an unavailable Redis failing closed, decided first, it is refused, and the future fails with that
     * outcome.
     */
    @Override
    public final boolean cancelledByCaller() {
        if (bulkhead.abandon(this, CANCELLED)) {
            return true;
        }
        int status = status();
        return status == GRANTED || (status == UNAVAILABLE && bulkhead.failOpen);
    }

    /** Runs the work this waiter was queued for, holding {@code permit}; every path must end by closing it. */
    abstract void begin(Permit permit);

    /** Arms cancellation by signal and by the caller's future. Called once, after the acquire was sent. */
    final void armCancellation() {
        if (signal.canBeCancelled()) {
            cancellationArmed(signal.onCancel(() -> bulkhead.abandon(this, CANCELLED)));
        }
        callerFuture.whenComplete((ignoredResult, ignoredFailure) -> bulkhead.abandon(this, CANCELLED));
        if (!isOpen()) {
            disarm();
        }
    }

    @Override
    void nowWaiting() {
        if (maxWaitNanos <= 0) {
            return;
        }
        long remaining = enqueuedAt + maxWaitNanos - bulkhead.ticker.read();
        try {
            timeoutArmed(bulkhead.scheduler().schedule(() -> bulkhead.abandon(this, TIMED_OUT), remaining,
                    TimeUnit.NANOSECONDS));
        } catch (RuntimeException schedulerRefused) {
            // Without a timer the wait could outlive its bound: give up now rather than wait forever.
            bulkhead.abandon(this, TIMED_OUT);
            return;
        }
        if (!isOpen()) {
            disarm();
        }
    }

    @Override
    final void decided() {
        bulkhead.dispatch(this::finish);
    }

    /** Delivers the fate; runs on the executor. A slot granted to a caller who gave up meanwhile is passed on. */
    private void finish() {
        disarm();
        Permit granted;
        try {
            granted = bulkhead.settle(this, signal.isCancelled() || callerFuture.isDone(), false);
        } catch (RuntimeException refusedOrCancelled) {
            callerFuture.completeExceptionally(refusedOrCancelled);
            return;
        }
        begin(granted);
    }
}
