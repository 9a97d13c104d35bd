package dev.bulwark.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bulkheads' lock spins for a holder before it parks, so that a contended slow path on an event loop does not
 * block it; and it still parks once the bound passes, so that a long-held lock costs a contender no CPU. The
 * contender's state is observed, never timed: a thread inside the spin shows the spin's frame and is not queued;
 * a parked one is queued.
 */
class SpinThenParkLockTest {

    @Test
    void aContenderSpinsWhileTheHolderIsInsideAndTakesTheLockWithoutQueuing() throws InterruptedException {
        SpinThenParkLock lock = new SpinThenParkLock(TimeUnit.SECONDS.toNanos(60));
        // A plain ReentrantLock would have queued (and parked) the contender at once.
        LockContender.contendWhileHeld(lock, "contender",
                contender -> LockContender.spinning(contender) && !lock.hasQueuedThread(contender));
        assertThat(lock.hasQueuedThreads()).isFalse();
    }

    @Test
    void aContenderParksOnceTheSpinBoundPassesAndIsStillGrantedTheLock() throws InterruptedException {
        SpinThenParkLock lock = new SpinThenParkLock(TimeUnit.MILLISECONDS.toNanos(1));
        LockContender.contendWhileHeld(lock, "contender", lock::hasQueuedThread);
    }

    @Test
    void anUncontendedLockIsAPlainReentrantLock() {
        SpinThenParkLock lock = new SpinThenParkLock();
        lock.lock();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.isFair()).isFalse();
    }
}
