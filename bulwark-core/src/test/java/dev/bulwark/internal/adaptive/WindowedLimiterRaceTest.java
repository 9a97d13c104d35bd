package dev.bulwark.internal.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import dev.bulwark.internal.bulkhead.InProcessBulkhead;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The lock-free sampler's invariant (see {@link WindowedLimiter}): every sample is counted in exactly one window,
 * however adds and closes interleave. One test forces the interleaving that matters, samples added between the
 * closer's read and its subtraction, by parking the closer there; the other lets eight threads race freely. Both
 * account for every sample: the windows' counts plus what is still pending equal what was sampled.
 */
class WindowedLimiterRaceTest {

    private static final int WINDOW = 32;

    /** A limiter that records what each closed window held and never moves the limit. */
    private static class Recording extends WindowedLimiter {
        final ConcurrentLinkedQueue<Long> windows = new ConcurrentLinkedQueue<>();
        final AtomicInteger concurrentClosers = new AtomicInteger();
        final AtomicInteger maxConcurrentClosers = new AtomicInteger();

        Recording() {
            super(AdaptiveLimit.aimd().windowSamples(WINDOW).maxLimit(1000).build(), 10, false);
        }

        @Override
        boolean complete(Window w, long seen) {
            int closers = concurrentClosers.incrementAndGet();
            maxConcurrentClosers.accumulateAndGet(closers, Math::max);
            try {
                beforeTakingWindow();
                return super.complete(w, seen);
            } finally {
                concurrentClosers.decrementAndGet();
            }
        }

        void beforeTakingWindow() {
        }

        @Override
        double decide(Window closed) {
            windows.add(closed.samples + closed.drops);
            return estimatedLimit;
        }

        long counted() {
            return windows.stream().mapToLong(Long::longValue).sum();
        }
    }

    private static InProcessBulkhead bulkhead() {
        return (InProcessBulkhead) Bulkhead.builder().maxConcurrency(10).build();
    }

    @Test
    void samplesAddedWhileTheCloserReadsTheWindowStayForTheNextWindow() throws Exception {
        CountDownLatch closerParked = new CountDownLatch(1);
        CountDownLatch othersDone = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        Recording limiter = new Recording() {
            @Override
            void beforeTakingWindow() {
                if (first.compareAndSet(true, false)) {
                    closerParked.countDown();
                    await(othersDone);
                }
            }
        };
        InProcessBulkhead bulkhead = bulkhead();
        for (int i = 0; i < WINDOW - 1; i++) {
            limiter.sample(bulkhead, 1_000_000L, 1_000_000L, 1, Permit.Outcome.SUCCESS);
        }
        // The 32nd sample makes this thread the closer; it parks after reading the window, before taking it.
        Thread closer = new Thread(() -> limiter.sample(bulkhead, 1_000_000L, 1_000_000L, 1, Permit.Outcome.SUCCESS));
        closer.start();
        assertThat(closerParked.await(10, TimeUnit.SECONDS)).isTrue();
        // Meanwhile 10 more samples (one a drop) arrive; none may become a second closer, none may be lost.
        for (int i = 0; i < 9; i++) {
            limiter.sample(bulkhead, 1_000_000L, 1_000_000L, 1, Permit.Outcome.SUCCESS);
        }
        limiter.sample(bulkhead, 1_000_000L, 1_000_000L, 1, Permit.Outcome.DROPPED);
        othersDone.countDown();
        closer.join(10_000);

        // The closer decided on what it read before parking (a window completes only once, at its read)...
        assertThat(limiter.windows).hasSize(1);
        long firstWindow = limiter.windows.peek();
        assertThat(firstWindow).isGreaterThanOrEqualTo(WINDOW);
        // ...and every sample is in exactly one place: the closed window or the pending one.
        assertThat(limiter.counted() + limiter.pendingSamples()).isEqualTo(WINDOW + 10);
        assertThat(limiter.maxConcurrentClosers.get()).isEqualTo(1);
    }

    @RepeatedTest(20)
    void eightThreadsRacingLoseAndDuplicateNothing() throws Exception {
        Recording limiter = new Recording();
        InProcessBulkhead bulkhead = bulkhead();
        int threads = 8;
        int perThread = 5_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        LongAdder sampled = new LongAdder();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread worker = new Thread(() -> {
                await(start);
                for (int i = 0; i < perThread; i++) {
                    Permit.Outcome outcome = (i + id) % 97 == 0 ? Permit.Outcome.DROPPED : Permit.Outcome.SUCCESS;
                    limiter.sample(bulkhead, 1_000L + 2L * i, 1_000L + i, 1 + (i % 8), outcome);
                    sampled.increment();
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join(30_000);
        }

        assertThat(sampled.sum()).isEqualTo((long) threads * perThread);
        assertThat(limiter.counted() + limiter.pendingSamples()).isEqualTo(sampled.sum());
        assertThat(limiter.maxConcurrentClosers.get()).isEqualTo(1);
        // Windows close only when full (or early on a drop), so nearly all samples have been taken.
        assertThat(limiter.pendingSamples()).isLessThan(WINDOW + threads);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
