package dev.bulwark.redis.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.internal.spi.WaiterFuture;
import java.util.concurrent.CompletableFuture;

/**
 * A waiter whose owner is a future: no thread waits. Three things may end the wait early: a timer (maximum wait,
 * armed once the call is queued), a listener on the cancellation signal and a callback on the caller's future
 * (armed after the acquire was sent, so that any release they send follows it on the connection). Once the fate is
 * decided, {@link #finish()} runs on the bulkhead's executor, never on a Redis I/O thread.
 */
abstract class AsyncWaiter extends RemoteWaiter implements WaiterFuture.Owner {

    final CompletableFuture<?> callerFuture;

    /**
     * What the scheduler threw when asked for the maximum wait's timer, written before this waiter is cancelled for
     * it: {@link #finish()} fails the future with it, the same instance, when the fate is {@code CANCELLED}. (A
     * caller or signal that cancels at that very instant may win the cancellation; the future then still fails
     * with the scheduler's exception, and the listeners are told cancelled either way.)
     */
    private volatile Throwable timerRefused;

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
        return status == GRANTED || (status == UNAVAILABLE && bulkhead.runsUnbacked(failure));
    }

    /** Runs the work this waiter was queued for, holding {@code permit}; every path must end by closing it. */
    abstract void begin(Permit permit);

    /** Arms cancellation by signal and by the caller's future. Called once, after the acquire was sent. */
    final void armCancellation() {
        armSignal(() -> bulkhead.abandon(this, CANCELLED));
        callerFuture.whenComplete((ignoredResult, ignoredFailure) -> bulkhead.abandon(this, CANCELLED));
        disarmIfDecided();
    }

    @Override
    void nowWaiting() {
        if (maxWaitNanos <= 0) {
            return;
        }
        long remaining = enqueuedAt + maxWaitNanos - bulkhead.ticker.read();
        try {
            armTimeout(bulkhead.scheduler(), remaining, this::expire);
        } catch (Throwable schedulerRefused) {
            // Without a timer the wait could outlive its bound: leave the queue now, as a cancelled waiter does (its
            // release removes the place in Redis, and its lease is no longer renewed), and fail the future with what
            // the scheduler threw. Whatever it threw, an Error too: thrown on, into the acquire's reply callback, it
            // would leave the waiter queued for nobody.
            timerRefused = schedulerRefused;
            bulkhead.abandon(this, CANCELLED);
            return;
        }
        disarmIfDecided();
    }

    /** The maximum wait passed: on the timer's thread (a wheel's, as its own node, or the scheduler's task). */
    @Override
    protected final void expire() {
        bulkhead.abandon(this, TIMED_OUT);
    }

    @Override
    final void decided() {
        bulkhead.dispatch(this::finish);
    }

    /**
     * Delivers the fate; runs on the executor. A slot granted to a caller who gave up meanwhile is passed on. A
     * waiter cancelled because the scheduler refused its timer fails with the scheduler's exception.
     */
    private void finish() {
        disarm();
        Permit granted;
        try {
            granted = bulkhead.settle(this, signal.isCancelled() || callerFuture.isDone(), false);
        } catch (RuntimeException refusedOrCancelled) {
            Throwable refusedTimer = timerRefused;
            callerFuture.completeExceptionally(refusedTimer != null && status() == CANCELLED ? refusedTimer
                    : refusedOrCancelled);
            return;
        }
        begin(granted);
    }
}
