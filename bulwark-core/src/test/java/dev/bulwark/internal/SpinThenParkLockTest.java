package dev.bulwark.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
        lock.lock();
        CountDownLatch acquired = new CountDownLatch(1);
        Thread contender = new Thread(() -> {
            lock.lock();
            try {
                acquired.countDown();
            } finally {
                lock.unlock();
            }
        }, "contender");
        contender.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> spinning(contender));
            // A plain ReentrantLock would have queued (and parked) the contender at once.
            assertThat(lock.hasQueuedThread(contender)).isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(acquired.await(30, TimeUnit.SECONDS)).isTrue();
        contender.join();
        assertThat(lock.hasQueuedThreads()).isFalse();
    }

    @Test
    void aContenderParksOnceTheSpinBoundPassesAndIsStillGrantedTheLock() throws InterruptedException {
        SpinThenParkLock lock = new SpinThenParkLock(TimeUnit.MILLISECONDS.toNanos(1));
        lock.lock();
        CountDownLatch acquired = new CountDownLatch(1);
        Thread contender = new Thread(() -> {
            lock.lock();
            try {
                acquired.countDown();
            } finally {
                lock.unlock();
            }
        }, "contender");
        contender.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> lock.hasQueuedThread(contender));
            assertThat(acquired.getCount()).isOne();
        } finally {
            lock.unlock();
        }
        assertThat(acquired.await(30, TimeUnit.SECONDS)).isTrue();
        contender.join();
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

    private static boolean spinning(Thread thread) {
        return Stream.of(thread.getStackTrace()).anyMatch(frame -> frame.getClassName()
                .equals(SpinThenParkLock.class.getName()) && frame.getMethodName().equals("spinUntilLocked"));
    }
}
