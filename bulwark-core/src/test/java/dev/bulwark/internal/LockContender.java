package dev.bulwark.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A thread that contends for a lock the test holds: the test watches how it waits, then lets it in. */
final class LockContender {

    private LockContender() {
    }

    /**
     * Holds {@code lock}, starts a thread named {@code threadName} that takes it, waits until {@code waiting} holds
     * for that thread, releases the lock and checks that the thread got it.
     */
    static void contendWhileHeld(ReentrantLock lock, String threadName, Predicate<Thread> waiting)
            throws InterruptedException {
        lock.lock();
        CountDownLatch acquired = new CountDownLatch(1);
        Thread contender = new Thread(() -> {
            lock.lock();
            try {
                acquired.countDown();
            } finally {
                lock.unlock();
            }
        }, threadName);
        contender.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> waiting.test(contender));
            assertThat(acquired.getCount()).as("still waiting while the lock is held").isOne();
        } finally {
            lock.unlock();
        }
        assertThat(acquired.await(30, TimeUnit.SECONDS)).isTrue();
        contender.join();
    }

    /** Whether {@code thread} is inside {@link SpinThenParkLock}'s spin (its stack shows the spin's frame). */
    static boolean spinning(Thread thread) {
        return Stream.of(thread.getStackTrace()).anyMatch(frame -> frame.getClassName()
                .equals(SpinThenParkLock.class.getName()) && frame.getMethodName().equals("spinUntilLocked"));
    }
}
