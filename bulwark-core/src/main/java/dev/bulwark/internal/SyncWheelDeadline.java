package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.internal.timer.TimerNode;
import dev.bulwark.internal.timer.TimerWheel;

/**
 * The deadline of one synchronous call through a {@link TimeoutStep} whose scheduler is the shared timing wheel: the
 * deadline is its own wheel node, so a call allocates this node and the inner cancellation signal, nothing else, and
 * reads no clock (the wheel turns the delay into a deadline from its own reading, never early, normally within two
 * ticks late; see {@link TimerWheel#scheduleAfter}). The start time is read only when a listener listens.
 *
 * <p>The race between the call ending and the deadline passing is the node's own state: the caller's
 * {@link #tryCancel()} and the timer's fire are both one CAS from {@code WAITING}, so exactly one wins. When the timer
 * wins, it cancels the inner signal (whose listeners are Bulwark's own quick callbacks) and interrupts the caller if
 * so configured; the caller waits for that to end ({@link #awaitExpired()}), clears the interrupt it caused, and
 * reports the timeout itself, so that no listener runs on the timer thread.
 */
final class SyncWheelDeadline extends TimerNode {

    private final TimeoutStep policy;
    private final Thread caller;
    private final CancellationSignal inner;
    /** Written by the timer before its state becomes EXPIRED; read by the caller after {@link #awaitExpired()}. */
    private TimeoutExceededException exception;

    private SyncWheelDeadline(TimerWheel wheel, TimeoutStep policy, Thread caller, CancellationSignal inner) {
        super(wheel, policy.timeoutNanos());
        this.policy = policy;
        this.caller = caller;
        this.inner = inner;
    }

    /** Runs the rest of the chain under this deadline. */
    static <T, X extends Throwable> T call(TimeoutStep policy, Chain chain, int next,
                                           ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        CancellationSignal inner = CancellationSignal.create();
        CancellationSignal.Registration link = Signals.link(signal, inner);
        TimerWheel wheel = SharedScheduler.wheel();
        SyncWheelDeadline deadline = new SyncWheelDeadline(wheel, policy, Thread.currentThread(), inner);
        long startedAt = policy.startTimeIfListened();
        try {
            wheel.scheduleAfter(deadline);
        } catch (RuntimeException refused) {
            // Without a timer there is no deadline to keep: refuse before running anything.
            link.close();
            throw refused;
        }
        T result = null;
        Throwable failure = null;
        try {
            result = chain.proceed(next, operation, inner);
        } catch (Throwable thrown) {
            failure = thrown;
        }
        boolean inTime = deadline.tryCancel();
        link.close();
        if (inTime) {
            policy.reportInTime(startedAt);
            if (failure != null) {
                throw Throwables.<X>rethrow(failure);
            }
            return result;
        }
        deadline.awaitExpired();
        if (policy.interruptsOnTimeout()) {
            Thread.interrupted();
        }
        TimeoutExceededException timedOut = deadline.exception;
        if (failure != null && failure != timedOut && failure.getCause() != timedOut) {
            timedOut.addSuppressed(failure);
        }
        policy.reportTimedOut(timedOut);
        throw timedOut;
    }

    @Override
    protected void expire() {
        TimeoutExceededException timedOut = new TimeoutExceededException(policy.name(), policy.timeout());
        exception = timedOut;
        inner.cancel(timedOut);
        if (policy.interruptsOnTimeout()) {
            caller.interrupt();
        }
    }
}
