package dev.bulwark.internal.timer;

import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A wheel node that one owner thread arms and disarms again and again, one call after another, without allocating
 * and without waiting for the timer thread: the node a thread keeps for its synchronous timeouts.
 *
 * <h2>Design notes</h2>
 *
 * <p>A one-shot {@link TimerNode} cannot be reused at once: after a cancel it stays on the wheel's stacks and in its
 * bucket until the worker's next tick, a millisecond that holds thousands of calls. This node never leaves the
 * owner's hands that way. Its {@link #word} holds a generation and a phase; the owner arms a call by writing the next
 * generation, {@code ARMED}, and ends it by one CAS back to {@code IDLE}. The worker learns of arms and ends through
 * the pending stack, at most once per tick: {@link #queued} says the node is on that stack (set by the owner before
 * its push, cleared by the worker after it took the node), so an arm or an end that finds it set does not push again.
 * Whatever the worker files is tagged with the armed word it read ({@code filedWord}); a filing whose word is no
 * longer the node's is stale and dropped, so a late fire of a reused node can never hit the next call.
 *
 * <p><b>Invariants.</b>
 * <ol>
 *   <li>Only the owner moves the phase out of {@code IDLE} (to the next generation's {@code ARMED}) and out of
 *       {@code EXPIRED} (back to {@code IDLE}); {@code ARMED} goes to exactly one of {@code IDLE} (the owner's CAS:
 *       the call ended in time) or {@code FIRING} (the worker's CAS, then {@link #expire()}, then {@code EXPIRED}).
 *       So a call is reported once, and the worker acts only for the generation it won.</li>
 *   <li>After every arm and every end the worker takes the node from the pending stack at least once more and then
 *       reads {@code word}: the owner writes {@code word} (volatile) and then reads {@code queued}; the worker clears
 *       {@code queued} (volatile), then reads its clock, then {@code word}. If the owner saw {@code queued} set, the
 *       clear comes after its write, so the worker's reading and its clock both come after it; if not, the owner
 *       pushes the node itself.</li>
 *   <li>Never early: an armed call's deadline is the worker's clock reading taken after that clear plus the delay,
 *       and that reading comes after the arm (2).</li>
 *   <li>The node is on the pending stack at most once (the owner pushes only after the worker cleared
 *       {@code queued}, which it does after it read the node's stack link) and filed in at most one bucket (a
 *       transfer unlinks an earlier filing before it files again).</li>
 * </ol>
 *
 * <p>Nothing is reachable from a finished call's filing but the node: subclasses drop their per-call references
 * when a call ends, and the end's transfer unlinks the filing within a tick.
 */
public abstract class RearmableTimer extends TimerNode {

    static final long IDLE = 0;
    static final long ARMED = 1;
    static final long FIRING = 2;
    static final long EXPIRED = 3;
    private static final long PHASE = 3;
    private static final long GENERATION = 4;

    private static final VarHandle WORD = VarHandles.field(MethodHandles.lookup(), "word", long.class);

    /** Generation (high bits) and phase (low two bits). */
    private volatile long word;
    /** On the wheel's pending stack: set by the owner before it pushes, cleared by the worker after it took it. */
    private volatile boolean queued;
    /** The armed call's delay: written by the owner before the arm's volatile write, read by the worker after. */
    private long delayNanos;
    /** Worker only: the armed word the current filing belongs to. */
    long filedWord = -1;

    /**
     * Creates an idle node of {@code wheel}.
     *
     * @param wheel the wheel it is armed on
     */
    protected RearmableTimer(TimerWheel wheel) {
        super(wheel, 0L);
    }

    /**
     * Returns whether no call is armed on the node (owner thread only: then {@link #arm(long)} may start one).
     *
     * @return {@code true} when idle
     */
    public final boolean isIdle() {
        return (word & PHASE) == IDLE;
    }

    /**
     * Arms the node for a call whose deadline is {@code delay} nanoseconds from now (from the worker's next reading,
     * never earlier). Owner thread only, and only when {@link #isIdle()}.
     *
     * @param delay the delay, not negative
     * @return the armed word, to hand to {@link #disarm(long)}
     * @throws java.util.concurrent.RejectedExecutionException when the wheel is shut down
     */
    public final long arm(long delay) {
        wheel.checkRunning();
        delayNanos = delay;
        long armed = (word & ~PHASE) + GENERATION + ARMED;
        word = armed;
        notifyWorker();
        return armed;
    }

    /**
     * Ends the armed call from the owner's side.
     *
     * @param armed what {@link #arm(long)} returned
     * @return {@code true} when the call ended before the deadline (the node is idle again); {@code false} when the
     *     timer fired first, in which case this returns once {@link #expire()} has returned, and the owner must call
     *     {@link #release(long)} when it has read what expire left
     */
    public final boolean disarm(long armed) {
        if (WORD.compareAndSet(this, armed, armed - ARMED)) {
            notifyWorker(); // so that the worker drops the filing within a tick
            return true;
        }
        int spins = 0;
        while (word != armed - ARMED + EXPIRED) {
            // The worker is inside expire(), a few instructions (Bulwark's own quick callbacks).
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return false;
    }

    /**
     * Makes a node that fired idle again. Owner thread only, after {@link #disarm(long)} returned {@code false}.
     *
     * @param armed what {@link #arm(long)} returned
     */
    public final void release(long armed) {
        word = armed - ARMED;
    }

    private void notifyWorker() {
        if (!queued) {
            queued = true;
            wheel.pushPending(this);
        }
    }

    /**
     * Worker: the node was taken from the pending stack (its stack link already read and cleared). Decides whether
     * and when it is filed.
     *
     * @param time the wheel's clock
     * @return {@code true} when an armed call needs a filing, its deadline set
     */
    final boolean transferred(TimerWheel.TimeSource time) {
        queued = false;
        long takenAt = time.nanoTime();
        for (;;) {
            long current = word;
            if ((current & PHASE) != ARMED) {
                filedWord = -1;
                return false;
            }
            long delay = delayNanos;
            if (word == current) {
                long due = takenAt + delay;
                deadline = due < takenAt ? Long.MAX_VALUE : due;
                filedWord = current;
                return true;
            }
        }
    }

    /**
     * Worker: whether the filing still belongs to the armed call (a stale one is dropped).
     *
     * @return {@code true} when the word is the one filed
     */
    final boolean filingIsCurrent() {
        return word == filedWord;
    }

    /** Worker: the filed call's deadline has passed; fires unless the owner ended the call first. */
    final void fireFiled() {
        long armed = filedWord;
        filedWord = -1;
        if (!WORD.compareAndSet(this, armed, armed - ARMED + FIRING)) {
            return;
        }
        try {
            expireLogged();
        } finally {
            word = armed - ARMED + EXPIRED; // even if logging itself threw
        }
    }
}
