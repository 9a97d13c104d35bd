package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: a sync timeout on the shared timing wheel (the default scheduler) is its own timer node and reads no
 * clock unless a listener listens; it never fires early, interrupts when told to and clears that interrupt, cancels a
 * queued bulkhead wait, and reports the timeout on the caller's thread, never on the timer thread.
 */
class SharedWheelTimeoutTest {

    /** A system ticker that counts its readings. */
    private static final class CountingTicker implements Ticker {
        final AtomicLong reads = new AtomicLong();

        @Override
        public long read() {
            reads.incrementAndGet();
            return System.nanoTime();
        }
    }

    @Test
    void aCallInTimeReadsNoClockWithoutListeners() {
        CountingTicker ticker = new CountingTicker();
        Timeout timeout = Timeout.builder().name("t").timeout(Duration.ofSeconds(30)).ticker(ticker).build();
        for (int i = 0; i < 1_000; i++) {
            assertThat(timeout.call(() -> "ok")).isEqualTo("ok");
        }
        assertThat(ticker.reads).hasValue(0);
    }

    @Test
    void aListenerGetsElapsedTimesAndAListenerAttachedDuringTheCallGetsZero() throws Exception {
        Timeout timeout = Timeout.builder().name("t").timeout(Duration.ofSeconds(30)).build();
        List<Long> elapsed = new CopyOnWriteArrayList<>();
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch attached = new CountDownLatch(1);
        Thread caller = new Thread(() -> {
            try {
                timeout.call(() -> {
                    inside.countDown();
                    attached.await();
                    return "ok";
                });
            } catch (InterruptedException unexpected) {
                Thread.currentThread().interrupt();
            }
        });
        caller.start();
        inside.await();
        timeout.addListener(new TimeoutListener() {
            @Override
            public void finishedInTime(long elapsedNanos) {
                elapsed.add(elapsedNanos);
            }
        });
        attached.countDown();
        caller.join();
        timeout.call(() -> {
            TimeUnit.MILLISECONDS.sleep(2);
            return "ok";
        });
        assertThat(elapsed).hasSize(2);
        assertThat(elapsed.get(0)).isZero();
        assertThat(elapsed.get(1)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(2));
    }

    @Test
    void theDeadlineIsNeverEarlyInterruptsClearsTheInterruptAndReportsOnTheCallersThread() {
        List<String> reportedOn = new ArrayList<>();
        Timeout timeout = Timeout.builder().name("t").timeout(Duration.ofMillis(20)).interruptOnTimeout(true)
                .onTimeout(exception -> reportedOn.add(Thread.currentThread().getName())).build();
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            Throwable thrown = catchThrowable(() -> timeout.call(() -> {
                new CountDownLatch(1).await(); // only the interrupt ends this
                return "never";
            }));
            long took = System.nanoTime() - start;
            assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
            assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
            assertThat(took).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
        assertThat(reportedOn).hasSize(5).containsOnly(Thread.currentThread().getName());
    }

    @Test
    void aTimeoutCancelsAWaitInTheBulkheadQueue() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("b").maxConcurrency(1).maxQueue(1).build();
        Policy pipeline = Pipeline.of(Timeout.builder().name("t").timeout(Duration.ofMillis(20)).build(), bulkhead);
        try (Permit held = bulkhead.acquire()) {
            Throwable thrown = catchThrowable(() -> pipeline.call(() -> "never"));
            assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
            assertThat(bulkhead.queuedCount()).isZero();
            assertThat(held.isReleased()).isFalse();
        }
        assertThat(bulkhead.executingCount()).isZero();
    }
}
