package dev.bulwark.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import reactor.blockhound.BlockHound;

/**
 * What BlockHound, installed by an application, reports about the bulkheads' internal lock on a non-blocking
 * thread: waiting for a holder (the spin, and the park after it) is allowed by {@link BulwarkBlockHoundIntegration},
 * found by BlockHound's service loader as in an application; a blocking call made while holding the lock, or a
 * park on any other lock, is still reported. Runs in a JVM of its own
 * (BlockHound instruments it for good); the threads named {@code non-blocking-*} count as non-blocking.
 */
@EnabledIfSystemProperty(named = "bulwark.blockhound", matches = "true")
class LockBlockHoundTest {

    private static final List<String> BLOCKING_CALLS = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void installBlockHound() {
        // install(...) also applies every integration its service loader finds, Bulwark's among them.
        BlockHound.install(builder -> builder
                .nonBlockingThreadPredicate(current -> current.or(
                        thread -> thread.getName().startsWith("non-blocking")))
                .blockingMethodCallback(method -> BLOCKING_CALLS.add(
                        method + " on " + Thread.currentThread().getName())));
    }

    @BeforeEach
    void forgetEarlierCalls() {
        BLOCKING_CALLS.clear();
    }

    @Test
    void controlASleepOnANonBlockingThreadIsReported() throws InterruptedException {
        runOnNonBlockingThread(() -> {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(BLOCKING_CALLS).anyMatch(call -> call.contains("sleep"));
    }

    @Test
    void spinningForTheHolderIsNotReported() throws InterruptedException {
        SpinThenParkLock lock = new SpinThenParkLock(TimeUnit.SECONDS.toNanos(60));
        LockContender.contendWhileHeld(lock, "non-blocking-contender", LockContender::spinning);
        assertThat(BLOCKING_CALLS).isEmpty();
    }

    @Test
    void parkingForAHolderPastTheSpinIsNotReportedEither() throws InterruptedException {
        SpinThenParkLock lock = new SpinThenParkLock(TimeUnit.MILLISECONDS.toNanos(1));
        LockContender.contendWhileHeld(lock, "non-blocking-contender", lock::hasQueuedThread);
        assertThat(BLOCKING_CALLS).isEmpty();
    }

    @Test
    void aBlockingCallWhileHoldingTheLockIsStillReported() throws InterruptedException {
        SpinThenParkLock lock = new SpinThenParkLock();
        runOnNonBlockingThread(() -> {
            lock.lock();
            try {
                Thread.sleep(1); // what user code under the lock could do: never allowed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        assertThat(BLOCKING_CALLS).anyMatch(call -> call.contains("sleep"));
    }

    @Test
    void parkingOnAnotherContendedLockIsStillReported() throws InterruptedException {
        ReentrantLock plain = new ReentrantLock();
        LockContender.contendWhileHeld(plain, "non-blocking-contender", plain::hasQueuedThread);
        assertThat(BLOCKING_CALLS).anyMatch(call -> call.contains("park") && call.contains("non-blocking"));
    }

    private static void runOnNonBlockingThread(Runnable task) throws InterruptedException {
        Thread thread = new Thread(task, "non-blocking-task");
        thread.start();
        thread.join();
    }
}
