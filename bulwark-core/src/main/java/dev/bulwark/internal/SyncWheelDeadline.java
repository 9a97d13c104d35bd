package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.internal.timer.RearmableTimer;
import dev.bulwark.internal.timer.TimerWheel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The deadline of synchronous calls through a {@link TimeoutStep} whose scheduler is the shared timing wheel.
 *
 * <h2>Design notes</h2>
 *
 * <p>A sync caller is blocked in its call, so a platform thread keeps one deadline node and re-arms it for each of
 * its calls ({@link RearmableTimer}: no allocation, no waiting for the timer thread between calls, a generation in
 * the node's word so that a stale fire can never hit the next call). A call therefore allocates only the inner
 * cancellation signal, and reads no clock (the wheel turns the delay into a deadline from its own reading, never
 * early, normally within two ticks late). The start time is read only when a listener listens.
 *
 * <p>A fresh node, used once, serves a call when the thread's node is busy (a timeout nested in another on the same
 * thread: a pipeline of two timeouts, or a timed call inside a timed operation) and on virtual threads, which
 * usually run one task each: a per-thread node would cost each of them a node and a thread-local map, and would
 * outlive a finished virtual thread in the wheel until its end's transfer.
 *
 * <p>The race between the call ending and the deadline passing is the node's word: the caller's
 * {@link RearmableTimer#disarm(long)} and the timer's fire are both one CAS from the armed word, so exactly one
 * wins. When the timer wins, it cancels the inner signal (whose listeners are Bulwark's own quick callbacks, or a
 * foreign inner policy's, which the Timeout Javadoc requires to be quick) and interrupts the caller if so
 * configured; the caller waits for that to end, clears the interrupt it caused, and reports the timeout itself, so
 * that no timeout listener runs on the timer thread. A call drops its references (policy,
 * signal, thread) when it ends, so a filing left in the wheel holds nothing but the node.
 */
final class SyncWheelDeadline extends RearmableTimer {

    private static final ThreadLocal<SyncWheelDeadline> OWN = new ThreadLocal<>();

    /** {@code Thread.isVirtual()} on JDK 21 and later; {@code null} on 17, which has no virtual threads. */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    // The armed call's: written by the owner before the arm publishes them, read by the timer after it won.
    private TimeoutStep policy;
    private CancellationSignal inner;
    private Thread caller;
    /** Written by the timer before its word becomes EXPIRED; read by the caller after disarm returned false. */
    private TimeoutExceededException exception;
    /** Whether the timer interrupted the caller (it does not when an interrupt is pending); published as above. */
    private boolean interruptedCaller;

    private SyncWheelDeadline(TimerWheel wheel) {
        super(wheel);
    }

    /** Runs the rest of the chain under a deadline. */
    static <T, X extends Throwable> T call(TimeoutStep policy, Chain chain, int next,
                                           ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Thread thread = Thread.currentThread();
        SyncWheelDeadline deadline = nodeFor(thread);
        CancellationSignal inner = CancellationSignal.create();
        CancellationSignal.Registration link = Signals.link(signal, inner);
        deadline.policy = policy;
        deadline.inner = inner;
        deadline.caller = thread;
        long startedAt = policy.startTimeIfListened();
        long armed;
        try {
            armed = deadline.arm(policy.timeoutNanos());
        } catch (RuntimeException refused) {
            // Without a timer there is no deadline to keep: refuse before running anything.
            deadline.forget();
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
        boolean inTime = deadline.disarm(armed);
        link.close();
        if (inTime) {
            deadline.forget();
            return policy.<T, X>endedInTime(startedAt, result, failure);
        }
        if (deadline.interruptedCaller) {
            Thread.interrupted(); // the interrupt the timer caused, and only that one
        }
        TimeoutExceededException timedOut = deadline.exception;
        deadline.forget();
        deadline.release(armed);
        throw policy.endedLate(timedOut, failure);
    }

    /** The thread's own node when it is free, else a fresh one used once. */
    private static SyncWheelDeadline nodeFor(Thread thread) {
        TimerWheel wheel = SharedScheduler.wheel();
        if (isVirtual(thread)) {
            return new SyncWheelDeadline(wheel);
        }
        SyncWheelDeadline own = OWN.get();
        if (own == null) {
            own = new SyncWheelDeadline(wheel);
            OWN.set(own);
            return own;
        }
        return own.isIdle() ? own : new SyncWheelDeadline(wheel);
    }

    /** Drops the call's references, so that the node in the wheel holds nothing of it. */
    private void forget() {
        policy = null;
        inner = null;
        caller = null;
        exception = null;
        interruptedCaller = false;
    }

    @Override
    protected void expire() {
        TimeoutExceededException timedOut = new TimeoutExceededException(policy.name(), policy.timeout());
        exception = timedOut;
        inner.cancel(timedOut);
        // An interrupt already pending is the caller's own: it is neither repeated nor cleared afterwards.
        if (policy.interruptsOnTimeout() && !caller.isInterrupted()) {
            interruptedCaller = true;
            caller.interrupt();
        }
    }

    private static boolean isVirtual(Thread thread) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable impossible) {
            throw new AssertionError(impossible);
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException beforeJdk21) {
            return null;
        }
    }
}
