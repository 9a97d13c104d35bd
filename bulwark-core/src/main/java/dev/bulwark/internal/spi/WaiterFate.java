package dev.bulwark.internal.spi;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.SharedScheduler;
import dev.bulwark.internal.timer.TimerNode;
import dev.bulwark.internal.timer.TimerWheel;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * What every bulkhead's waiter has in common: a call that waits for a slot, whose fate is decided exactly once.
 *
 * <p>Invariant: {@link #status()} leaves an open state ({@link #JOINING}, {@link #WAITING}) once, by one
 * compare-and-set to a final state ({@link #GRANTED}, {@link #CANCELLED}, {@link #TIMED_OUT}, {@link #EVICTED},
 * {@link #REFUSED}, {@link #UNAVAILABLE}). Grant, cancellation, maximum wait, eviction and failure all race for
 * that one CAS; the winner owns the consequences (a granter's slot now belongs to the waiter's owner, who must use
 * or release it; a canceller removes the waiter and reports the outcome) and the losers do nothing. Fields a
 * decider writes for the owner are written before the CAS and read after reading the status.
 *
 * <p>A waiter that no thread watches (a future's, a fair-share waiter) also holds the two things that can end its
 * wait early, a timer and a registration on the cancellation signal, armed here for every bulkhead alike
 * ({@link #armTimeout}, {@link #armSignal}); {@link #disarm()} cancels both and may run any number of times, on any
 * thread. A waiter arms them once, then re-checks its status ({@link #disarmIfDecided()}), so a fate decided while
 * arming still disarms everything. On a timing wheel (the shared one, or any wheel given as the scheduler) a waiter
 * is its own timer node: no task, no separate node; the wheel calls {@link #expire()}; with any other scheduler it
 * holds the task that scheduler returned.
 */
public abstract class WaiterFate extends TimerNode {

    /** Marks {@link #timeoutTask} when the waiter itself is the timer, scheduled on a wheel. */
    private static final Scheduler.Cancellable OWN_TIMER = () -> { };

    /** Open: the bulkhead does not know yet whether the call must wait (its request is in flight). */
    public static final int JOINING = -1;
    /** Open: the call waits in the queue. */
    public static final int WAITING = 0;
    /** A slot was handed to the waiter. */
    public static final int GRANTED = 1;
    /** The caller gave up: signal cancelled, thread interrupted, or future completed by the caller. */
    public static final int CANCELLED = 2;
    /** The maximum wait passed. */
    public static final int TIMED_OUT = 3;
    /** A newer waiter took its place (LIFO queue at its limit). */
    public static final int EVICTED = 4;
    /** The bulkhead refused it on arrival (queue full). */
    public static final int REFUSED = 5;
    /** The bulkhead could not decide (its store was unreachable, or lost the waiter's place). */
    public static final int UNAVAILABLE = 6;

    private static final VarHandle STATUS = VarHandles.field(MethodHandles.lookup(), "status", int.class);

    /** The caller's signal. */
    public final CancellationSignal signal;
    /** Ticker reading when the call started waiting, for the wait duration and the deadline. */
    public final long enqueuedAt;
    /**
     * Whether the slot came without queuing: set by the thread that decided the grant, before the owner can see
     * it, and read only by the owner.
     */
    public boolean grantedOnArrival;

    private volatile int status;

    // Written once when armed; read by disarm(), which may run on another thread. Both are idempotent.
    private volatile Scheduler.Cancellable timeoutTask;
    private volatile CancellationSignal.Registration registration;

    /**
     * Creates an undecided waiter.
     *
     * @param signal the caller's signal
     * @param enqueuedAt ticker reading when the call started waiting
     * @param openStatus {@link #JOINING} or {@link #WAITING}
     */
    protected WaiterFate(CancellationSignal signal, long enqueuedAt, int openStatus) {
        super();
        this.signal = signal;
        this.enqueuedAt = enqueuedAt;
        if (openStatus != WAITING) {
            this.status = openStatus;
        }
    }

    /**
     * Returns the fate as decided so far (a volatile read).
     *
     * @return one of the status constants
     */
    public final int status() {
        return status;
    }

    /**
     * Returns whether the fate is still open.
     *
     * @return {@code true} while joining or waiting
     */
    public final boolean isOpen() {
        return status <= WAITING;
    }

    /**
     * Decides the fate if it is exactly {@code expected}.
     *
     * @param expected the open state the decision applies to
     * @param outcome the final state
     * @return whether this call decided it
     */
    public final boolean decideIf(int expected, int outcome) {
        return STATUS.compareAndSet(this, expected, outcome);
    }

    /**
     * Decides the fate if it is still open, whichever open state it is in.
     *
     * @param outcome the final state
     * @return the open state it had ({@link #JOINING} or {@link #WAITING}), or {@link Integer#MIN_VALUE} when its
     *     fate was already decided
     */
    public final int decideIfOpen(int outcome) {
        for (;;) {
            int current = status;
            if (current > WAITING) {
                return Integer.MIN_VALUE;
            }
            if (STATUS.compareAndSet(this, current, outcome)) {
                return current;
            }
        }
    }

    /**
     * Moves an open waiter from one open state to another ({@link #JOINING} to {@link #WAITING}).
     *
     * @param from the state it must be in
     * @param to the state it moves to
     * @return whether it moved; {@code false} when its fate was decided meanwhile
     */
    protected final boolean advance(int from, int to) {
        return STATUS.compareAndSet(this, from, to);
    }

    /**
     * Marks a waiter granted before anyone else could see it (a plain volatile write, no race possible).
     */
    protected final void grantedBeforePublication() {
        grantedOnArrival = true;
        status = GRANTED;
    }

    /**
     * Arms the end of the wait at its maximum. Called once, by the queuing thread, after the waiter is queued. On a
     * {@link TimerWheel} (the shared scheduler's, or one given as the scheduler) the waiter is scheduled as its own
     * node, so arming allocates nothing, and the wheel's thread calls {@link #expire()}, which must then do what
     * {@code onTimeout} does; with another scheduler {@code onTimeout} is the scheduled task, run on that scheduler's
     * thread. A waiter whose fate is decided cancels its node ({@link #disarm()}), which the wheel unlinks on its next
     * tick. Whatever the scheduler throws when it refuses the task (an {@code Error} too) is thrown on: the caller
     * must end the wait, which without its timer could outlive its bound.
     *
     * @param scheduler the bulkhead's scheduler
     * @param remainingNanos how long the wait may still last
     * @param onTimeout the task, for a scheduler that is not a wheel
     */
    protected final void armTimeout(Scheduler scheduler, long remainingNanos, Runnable onTimeout) {
        TimerWheel wheel = scheduler == SharedScheduler.INSTANCE ? SharedScheduler.wheel()
                : scheduler instanceof TimerWheel ? (TimerWheel) scheduler : null;
        if (wheel != null) {
            wheel.scheduleAfter(this, remainingNanos);
            timeoutTask = OWN_TIMER;
        } else {
            timeoutTask = scheduler.schedule(onTimeout, remainingNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * The maximum wait passed: called by the wheel's thread, once, when the waiter is its own timer
     * ({@link #armTimeout}) and was not cancelled. Waiters that never arm a timeout need not override it. Must be
     * short and run no user code.
     */
    @Override
    protected void expire() {
    }

    /**
     * Arms the end of the wait by the caller's signal, if the signal can be cancelled at all. Called once, by the
     * queuing thread.
     *
     * @param onCancel the signal's listener, run on the cancelling thread
     */
    protected final void armSignal(Runnable onCancel) {
        if (signal.canBeCancelled()) {
            registration = signal.onCancel(onCancel);
        }
    }

    /**
     * The last step of arming: a fate decided while the early ends were armed (before they could be disarmed) still
     * disarms them.
     */
    protected final void disarmIfDecided() {
        if (!isOpen()) {
            disarm();
        }
    }

    /** Cancels the timer task and closes the signal registration, whichever were armed. Idempotent. */
    protected final void disarm() {
        Scheduler.Cancellable task = timeoutTask;
        if (task == OWN_TIMER) {
            tryCancel();
        } else if (task != null) {
            task.cancel();
        }
        CancellationSignal.Registration current = registration;
        if (current != null) {
            current.close();
        }
    }
}
