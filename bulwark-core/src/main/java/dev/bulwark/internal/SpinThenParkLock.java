package dev.bulwark.internal;

import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link ReentrantLock} for short critical sections that may be entered from threads which must not block: a
 * contended {@link #lock()} spins for the holder to leave before it parks.
 *
 * <p><b>Why.</b> The bulkheads' slow paths (queuing, granting, unlinking a cancelled waiter, refusing on close) run
 * under a lock, and they run on whatever thread calls: often a Netty event loop or a Reactor non-blocking thread,
 * where parking is a blocking call. The sections are short by construction (they run no user code; a few hundred
 * nanoseconds, microseconds when they grant or sweep many waiters), but a plain {@code ReentrantLock} on JDK 17 parks
 * a contender at once, so two event loops queuing and cancelling at the same instant blocked one of them (BlockHound
 * caught it in {@code SheddingBlockHoundTest}). Spinning for up to {@link #SPIN_NANOS} lets a contender take the lock
 * as soon as the holder leaves, as the JVM does for contended monitors.
 *
 * <p><b>Guarantee.</b> A contender parks only when it could not take the lock within the spin bound, counted from
 * its own first attempt: the holder was descheduled inside its section or sweeps a long queue (a close or a limit
 * change refusing thousands of waiters), or other contenders kept winning the hand-over (the lock is non-fair). The
 * uncontended path is the plain lock's single compare-and-set; the clock is read only once a first attempt failed.
 * Spinning never pins a virtual thread (it holds its carrier for at most the bound, then parks and unmounts like any
 * {@code ReentrantLock} waiter). Ownership, reentrancy, {@code tryLock} and conditions are the superclass's, unchanged;
 * the lock stays non-fair.
 */
public final class SpinThenParkLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;

    /**
     * How long a contender spins before it parks. Long enough for any section that grants or unlinks a handful of
     * waiters to end on a loaded machine, short enough that a descheduled holder costs the spinner little.
     */
    static final long SPIN_NANOS = 50_000L;

    /** How long this lock's contenders spin: {@link #SPIN_NANOS}, or a test's own bound. */
    private final long spinNanos;

    /** Creates an unlocked, non-fair lock. */
    public SpinThenParkLock() {
        this(SPIN_NANOS);
    }

    /** A lock whose contenders spin for {@code spinNanos}: lets a test watch a contender spin, or park. */
    SpinThenParkLock(long spinNanos) {
        super(false);
        this.spinNanos = spinNanos;
    }

    /**
     * Takes the lock, spinning up to {@link #SPIN_NANOS} (by default) while it is held by another thread, then parking.
     */
    @Override
    public void lock() {
        if (tryLock() || spinUntilLocked()) {
            return;
        }
        super.lock();
    }

    /** Whether the lock was taken while spinning. */
    private boolean spinUntilLocked() {
        long start = System.nanoTime();
        do {
            Thread.onSpinWait();
            // Read before trying: a failing CAS on a held lock would only move its cache line between the cores.
            if (!isLocked() && tryLock()) {
                return true;
            }
        } while (System.nanoTime() - start < spinNanos);
        return false;
    }
}
