package dev.bulwark.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import dev.bulwark.TimeoutExceededException;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: sync timeouts on the shared wheel re-arm one node per thread. A call allocates at most the inner
 * signal, a million calls on several threads leave nothing filed and keep no policy reachable, and a timeout nested
 * in another on the same thread (whose node is then busy) still keeps both deadlines.
 */
class SyncWheelDeadlineTest {

    private static final int CALLS = 200_000;

    @Test
    void retryTimeoutBulkheadAllocatesAtMost64BytesPerCall() {
        Policy stack = Pipeline.of(Retry.builder().maxRetries(2).build(), Timeout.of(Duration.ofSeconds(10)),
                Bulkhead.builder().maxConcurrency(4).build());
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double least = Double.MAX_VALUE;
        Object sink = null;
        for (int round = 0; round < 10; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < CALLS; i++) {
                sink = stack.call(() -> "ok");
            }
            least = Math.min(least, (double) (threads.getCurrentThreadAllocatedBytes() - before) / CALLS);
        }
        assertThat(sink).isEqualTo("ok");
        assertThat(least).as("bytes allocated per call").isLessThanOrEqualTo(64.0);
    }

    @Test
    void aMillionCallsOnFourThreadsLeaveTheSharedWheelEmptyAndThePolicyUnreachable() throws Exception {
        Timeout timeout = Timeout.of(Duration.ofHours(1));
        WeakReference<Timeout> policy = new WeakReference<>(timeout);
        Policy[] stack = {Pipeline.of(Retry.builder().maxRetries(2).build(), timeout,
                Bulkhead.builder().maxConcurrency(4).build())};
        timeout = null;
        AtomicLong sum = new AtomicLong();
        CountDownLatch done = new CountDownLatch(4);
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                try {
                    long local = 0;
                    for (int i = 0; i < 250_000; i++) {
                        int value = i;
                        local += stack[0].call(() -> value);
                    }
                    sum.addAndGet(local);
                    // The thread stays alive (its node with it) while the test checks reachability.
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(5));
                } finally {
                    done.countDown();
                }
            }, "leak-" + t).start();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> sum.get() == 4 * (249_999L * 250_000 / 2));
        await().atMost(Duration.ofSeconds(30)).until(() -> SharedScheduler.wheel().filedCount() == 0);
        stack[0] = null;
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            System.gc();
            return policy.get() == null;
        });
        done.await();
    }

    @Test
    void aTimeoutNestedInAnotherOnTheSameThreadKeepsBothDeadlinesAndTheNodeIsReusedAfter() {
        Timeout outer = Timeout.builder().timeout(Duration.ofMillis(200)).interruptOnTimeout(true).build();
        Timeout inner = Timeout.builder().timeout(Duration.ofMillis(20)).interruptOnTimeout(true).build();
        long startedAt = System.nanoTime();
        Throwable thrown = catchThrowable(
                () -> outer.call(() -> inner.call(SyncWheelDeadlineTest::parkUntilInterrupted)));
        assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
        assertThat(((TimeoutExceededException) thrown).timeout()).isEqualTo(Duration.ofMillis(20));
        assertThat(System.nanoTime() - startedAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();

        // The outer deadline, nested the other way round: the thread's node serves the outer, a fresh one the inner.
        startedAt = System.nanoTime();
        thrown = catchThrowable(() -> inner.call(() -> outer.call(SyncWheelDeadlineTest::parkUntilInterrupted)));
        assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
        assertThat(System.nanoTime() - startedAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();

        // And afterwards calls on this thread still work, in time and timed out.
        assertThat(outer.call(() -> "in time")).isEqualTo("in time");
        startedAt = System.nanoTime();
        assertThat(catchThrowable(() -> inner.call(SyncWheelDeadlineTest::parkUntilInterrupted)))
                .isInstanceOf(TimeoutExceededException.class);
        assertThat(System.nanoTime() - startedAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
    }

    /**
     * On virtual threads (JDK 21 and later; skipped on 17) each timed call uses a fresh node once: calls in time and
     * timed out ones keep their deadlines, and the wheel is left empty.
     */
    @Test
    void virtualThreadsUseAFreshNodeAndLeaveTheWheelEmpty() throws Exception {
        java.lang.reflect.Method perTask;
        try {
            perTask = java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        } catch (NoSuchMethodException beforeJdk21) {
            org.junit.jupiter.api.Assumptions.abort("no virtual threads before JDK 21");
            return;
        }
        Timeout quick = Timeout.builder().timeout(Duration.ofMillis(5)).interruptOnTimeout(true).build();
        Policy stack = Pipeline.of(Retry.builder().maxRetries(2).build(), Timeout.of(Duration.ofHours(1)),
                Bulkhead.builder().maxConcurrency(64).build());
        AtomicLong inTime = new AtomicLong();
        AtomicLong timedOut = new AtomicLong();
        java.util.concurrent.ExecutorService executor = (java.util.concurrent.ExecutorService) perTask.invoke(null);
        try {
            for (int i = 0; i < 10_000; i++) {
                int value = i;
                executor.submit(() -> {
                    if (stack.call(() -> value) == value) {
                        inTime.incrementAndGet();
                    }
                    if (value % 1_000 == 0) {
                        long startedAt = System.nanoTime();
                        Throwable thrown = catchThrowable(
                                () -> quick.call(SyncWheelDeadlineTest::parkUntilInterrupted));
                        if (thrown instanceof TimeoutExceededException
                                && System.nanoTime() - startedAt >= TimeUnit.MILLISECONDS.toNanos(5)
                                && !Thread.currentThread().isInterrupted()) {
                            timedOut.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
        } finally {
            executor.shutdown();
        }
        assertThat(executor.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        assertThat(inTime).hasValue(10_000);
        assertThat(timedOut).hasValue(10);
        await().atMost(Duration.ofSeconds(30)).until(() -> SharedScheduler.wheel().filedCount() == 0);
    }

    private static String parkUntilInterrupted() throws InterruptedException {
        while (!Thread.currentThread().isInterrupted()) {
            LockSupport.park();
        }
        throw new InterruptedException("interrupted by the timeout");
    }
}
