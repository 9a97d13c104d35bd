package dev.bulwark;

import static dev.bulwark.BulkheadRaceTest.assertQuiet;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.CapturingScheduler;
import dev.bulwark.testing.Rounds;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Races inside the composition policies: a timer firing at the same instant as the thing it times, a signal
 * cancelled at the same instant as a retry delay ends. Two threads are released together by a barrier, round after
 * round; whichever wins, exactly one outcome is reported and an inner bulkhead's slot is released exactly once.
 */
class PolicyRaceTest {

    private static final int ROUNDS = Rounds.of(300);

    @Test
    @DisplayName("async Timeout: the deadline fires at the instant the inner stage completes")
    void anAsyncDeadlineRacingCompletionHasExactlyOneOutcome() throws Exception {
        Bulkhead bulkhead = Bulkhead.of(1);
        for (int round = 0; round < ROUNDS; round++) {
            CapturingScheduler scheduler = new CapturingScheduler();
            AtomicInteger timedOut = new AtomicInteger();
            AtomicInteger inTime = new AtomicInteger();
            Timeout timeout = Timeout.builder().timeout(Duration.ofSeconds(1)).scheduler(scheduler)
                    .listener(new TimeoutListener() {
                        @Override
                        public void timedOut(TimeoutExceededException exception) {
                            timedOut.incrementAndGet();
                        }

                        @Override
                        public void finishedInTime(long elapsedNanos) {
                            inTime.incrementAndGet();
                        }
                    }).build();
            CompletableFuture<String> stage = new CompletableFuture<>();
            CompletableFuture<String> result = Pipeline.of(timeout, bulkhead).callAsync(() -> stage);
            CyclicBarrier together = new CyclicBarrier(2);
            Thread timer = new Thread(() -> {
                await(together);
                scheduler.task(0).run();
            });
            timer.start();
            await(together);
            stage.complete("value");
            timer.join();

            Throwable failure = result.handle((value, thrown) -> thrown).join();
            if (failure == null) {
                assertThat(result).isCompletedWithValue("value");
                assertThat(inTime).hasValue(1);
                assertThat(timedOut).hasValue(0);
            } else {
                assertThat(failure).isInstanceOf(TimeoutExceededException.class);
                assertThat(timedOut).hasValue(1);
                assertThat(inTime).hasValue(0);
            }
            assertQuiet(bulkhead, 1);
        }
    }

    @Test
    @DisplayName("sync Timeout with interrupts: the deadline fires at the instant the operation returns")
    void aSyncDeadlineRacingTheReturnNeverLeavesTheCallerInterrupted() throws Exception {
        Bulkhead bulkhead = Bulkhead.of(1);
        for (int round = 0; round < ROUNDS; round++) {
            CapturingScheduler scheduler = new CapturingScheduler();
            AtomicInteger events = new AtomicInteger();
            Timeout timeout = Timeout.builder().timeout(Duration.ofSeconds(1)).interruptOnTimeout(true)
                    .scheduler(scheduler).onTimeout(exception -> events.incrementAndGet())
                    .listener(new TimeoutListener() {
                        @Override
                        public void finishedInTime(long elapsedNanos) {
                            events.incrementAndGet();
                        }
                    }).build();
            CyclicBarrier together = new CyclicBarrier(2);
            Thread[] timer = new Thread[1];

            Throwable failure = null;
            String result = null;
            try {
                result = Pipeline.of(timeout, bulkhead).call(() -> {
                    Runnable deadline = scheduler.task(0);
                    timer[0] = new Thread(() -> {
                        await(together);
                        deadline.run();
                    });
                    timer[0].start();
                    await(together);
                    return "value";
                });
            } catch (TimeoutExceededException e) {
                failure = e;
            }
            boolean interrupted = Thread.interrupted();
            timer[0].join();

            assertThat(interrupted).as("round %d: the timer's interrupt leaked out of the call", round).isFalse();
            assertThat(failure == null ? result : failure.getClass().getSimpleName())
                    .isIn("value", "TimeoutExceededException");
            assertThat(events).as("exactly one of timed out / in time").hasValue(1);
            assertQuiet(bulkhead, 1);
        }
    }

    @Test
    @DisplayName("async Retry: the signal is cancelled at the instant the delay ends")
    void aSignalCancelledAsTheRetryDelayEndsEitherStopsOrRetriesOnce() throws Exception {
        Bulkhead bulkhead = Bulkhead.of(1);
        for (int round = 0; round < ROUNDS; round++) {
            CapturingScheduler scheduler = new CapturingScheduler();
            Retry retry = Retry.builder().maxRetries(3).delay(Duration.ofSeconds(1)).scheduler(scheduler).build();
            CancellationSignal signal = CancellationSignal.create();
            AtomicInteger attempts = new AtomicInteger();
            CompletableFuture<String> result = Pipeline.of(retry, bulkhead).callAsync(
                    () -> attempts.incrementAndGet() == 1 ? CompletableFuture.failedFuture(new IOException("again"))
                            : CompletableFuture.completedFuture("second"), signal);
            assertThat(scheduler.size()).isEqualTo(1);
            CyclicBarrier together = new CyclicBarrier(2);
            Thread timer = new Thread(() -> {
                await(together);
                scheduler.task(0).run();
            });
            timer.start();
            await(together);
            signal.cancel();
            timer.join();

            Throwable failure = result.handle((value, thrown) -> thrown).join();
            if (failure == null) {
                assertThat(result).isCompletedWithValue("second");
                assertThat(attempts).hasValue(2);
            } else {
                assertThat(failure).isInstanceOf(CancellationException.class);
                assertThat(attempts.get()).isLessThanOrEqualTo(2);
            }
            assertThat(scheduler.size()).as("no further delay was scheduled").isEqualTo(1);
            assertQuiet(bulkhead, 1);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
