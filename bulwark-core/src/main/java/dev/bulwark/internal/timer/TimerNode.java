package dev.bulwark.internal.timer;

import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A node of a {@link TimerWheel}: its deadline, its state and the links that file it. Subclasses add what to do when
 * the deadline passes ({@link #expire()}), so that an object that needs a timer (a sync timeout's deadline, say) can
 * be its own node instead of allocating a task and a node. See the wheel's design notes for who touches which field.
 *
 * <p>State: {@link #WAITING} goes to exactly one of {@link #FIRED} (the worker's CAS, then {@link #expire()} runs,
 * then {@link #EXPIRED}) or {@link #CANCELLED} (the canceller's CAS); the winner alone acts.
 */
public abstract class TimerNode {

    static final int WAITING = 0;
    static final int FIRED = 1;
    static final int CANCELLED = 2;
    /** {@link #expire()} has returned. */
    static final int EXPIRED = 3;

    private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", int.class);

    /**
     * The wheel it is scheduled on: set by the constructor, or by {@link TimerWheel#scheduleAfter(TimerNode, long)}
     * before the push that publishes the node (a canceller reads it after it read that the node was armed).
     */
    TimerWheel wheel;
    /**
     * The wheel-clock reading at which it is due. For a node scheduled with {@link TimerWheel#scheduleAfter}, the
     * delay until the worker takes it from the pending stack, which turns it into a deadline (worker only then).
     */
    long deadline;
    volatile int state;

    // Worker thread only. No lap counter: a node in the bucket being walked fires when its deadline has passed and
    // otherwise waits for a later lap (its bucket is walked at its due tick, which begins after its deadline).
    int bucketIndex = -1;
    TimerNode previous;
    TimerNode next;
    // Stack links: written by the pushing thread before its CAS publishes the node, read by the worker after its
    // getAndSet took the stack.
    TimerNode nextPending;
    TimerNode nextCancelled;

    /**
     * Creates a node of {@code wheel}, not yet scheduled.
     *
     * @param wheel the wheel it will be scheduled on
     * @param deadline its deadline, or its delay for {@link TimerWheel#scheduleAfter}
     */
    protected TimerNode(TimerWheel wheel, long deadline) {
        this.wheel = wheel;
        this.deadline = deadline;
    }

    /**
     * Creates a node whose wheel and delay are given when it is scheduled, by
     * {@link TimerWheel#scheduleAfter(TimerNode, long)}: for objects that are a timer only sometimes (a queued waiter
     * with a maximum wait).
     */
    protected TimerNode() {
    }

    /**
     * What happens when the deadline passes: runs on the timer thread, once, only if the node was not cancelled. It
     * must be short and must not run user code (complete a future, cancel a signal, wake a thread). What it throws
     * is logged and the timer goes on.
     */
    protected abstract void expire();

    /** Fires the node if it was not cancelled. Worker thread only. */
    final void fire() {
        if (!STATE.compareAndSet(this, WAITING, FIRED)) {
            return;
        }
        try {
            expireLogged();
        } finally {
            state = EXPIRED; // even if logging itself threw
        }
    }

    /**
     * Runs {@link #expire()} on the timer thread, logging what it throws: it is Bulwark's own quick callback, and
     * whatever it throws must not stop the timer for everyone. Shared by every kind of node's fire.
     */
    final void expireLogged() {
        try {
            expire();
        } catch (Throwable failure) {
            System.getLogger("dev.bulwark").log(System.Logger.Level.WARNING, "A timer task threw; the timer goes on",
                    failure);
        }
    }

    /**
     * Cancels the node if it has not fired: {@link #expire()} will never run, and the wheel unlinks the node on its
     * next tick.
     *
     * @return {@code true} when this call cancelled it; {@code false} when it had fired (or was cancelled) before
     */
    public final boolean tryCancel() {
        if (!STATE.compareAndSet(this, WAITING, CANCELLED)) {
            return false;
        }
        cancelled();
        wheel.pushCancelled(this);
        return true;
    }

    /** Called once by the thread whose {@link #tryCancel()} won, before the node goes to the worker: drop refs. */
    protected void cancelled() {
    }

    /**
     * Waits until {@link #expire()} has returned, after a {@link #tryCancel()} that lost to the timer. It is a few
     * instructions away (expire is short), so this spins, then yields.
     */
    public final void awaitExpired() {
        int spins = 0;
        while (state != EXPIRED) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
