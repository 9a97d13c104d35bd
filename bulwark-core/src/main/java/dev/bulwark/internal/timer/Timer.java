package dev.bulwark.internal.timer;

import dev.bulwark.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One timer of a {@link TimerWheel}: the task, its deadline, and the links that file it. The only allocation a
 * schedule makes. See the wheel's design notes for who touches which field.
 */
final class Timer implements Scheduler.Cancellable {

    static final int WAITING = 0;
    static final int FIRED = 1;
    static final int CANCELLED = 2;

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark");
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Timer.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final TimerWheel wheel;
    /** Dropped (set to {@code null}) by whoever decides the state, so a decided timer holds nothing. */
    private Runnable task;
    final long deadline;
    volatile int state;

    // Worker thread only.
    int rounds;
    int bucketIndex = -1;
    Timer previous;
    Timer next;
    // Stack links: written by the pushing thread before its CAS publishes the node, read by the worker after its
    // getAndSet took the stack.
    Timer nextPending;
    Timer nextCancelled;

    Timer(TimerWheel wheel, Runnable task, long deadline) {
        this.wheel = wheel;
        this.task = task;
        this.deadline = deadline;
    }

    /** Runs the task if the timer was not cancelled. Worker thread only. */
    void fire() {
        if (!STATE.compareAndSet(this, WAITING, FIRED)) {
            return;
        }
        Runnable toRun = task;
        task = null;
        try {
            toRun.run();
        } catch (Throwable failure) {
            // A task is Bulwark's own quick callback; whatever it throws must not stop the timer for everyone.
            LOGGER.log(System.Logger.Level.WARNING, "A timer task threw; the timer goes on", failure);
        }
    }

    /**
     * Cancels the timer if it has not fired: its task will never run and is released at once.
     *
     * @return {@code true} when this call cancelled it
     */
    boolean tryCancel() {
        if (!STATE.compareAndSet(this, WAITING, CANCELLED)) {
            return false;
        }
        task = null;
        wheel.pushCancelled(this);
        return true;
    }

    @Override
    public void cancel() {
        tryCancel();
    }
}
