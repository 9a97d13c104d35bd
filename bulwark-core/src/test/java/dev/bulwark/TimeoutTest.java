package dev.bulwark;

import static dev.bulwark.testing.Threads.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Issue 3: Timeout on the sync and async paths (behaviours 4, 5, 6, 9). */
class TimeoutTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);

    private Timeout.Builder timeout(Duration duration) {
        return Timeout.builder().name("inventory").timeout(duration).scheduler(scheduler).ticker(ticker);
    }

    @Test
    void anOperationThatFinishesInTimeReturnsOnTheCallersThread() {
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();

        String result = timeout(Duration.ofSeconds(1)).build().call(() -> {
            ranOn.set(Thread.currentThread());
            return "fast";
        });

        assertThat(result).isEqualTo("fast");
        assertThat(ranOn.get()).isSameAs(caller);
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void theOperationsOwnExceptionPassesThroughWhenInTime() {
        IOException failure = new IOException("disk");
        assertThat(catchThrowable(() -> timeout(Duration.ofSeconds(1)).build().run(() -> {
            throw failure;
        }))).isSameAs(failure);
    }

    @Test
    void atTheDeadlineTheInnerBulkheadWaiterLeavesTheQueueAndTheCallerGetsTheTimeout() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        List<TimeoutExceededException> fired = new ArrayList<>();
        Policy pipeline = Pipeline.of(timeout(Duration.ofMillis(200)).onTimeout(fired::add).build(), bulkhead);
        AtomicInteger runs = new AtomicInteger();
        FutureTask<Throwable> call = start("caller", () -> catchThrowable(() -> pipeline.call(runs::incrementAndGet)));
        dev.bulwark.testing.Threads.awaitQueued(bulkhead, 1);

        scheduler.advance(Duration.ofMillis(200));

        assertThat(bulkhead.queuedCount()).isZero(); // left the queue inside advance(), at the deadline
        Throwable thrown = call.get(10, TimeUnit.SECONDS);
        assertThat(thrown).isInstanceOfSatisfying(TimeoutExceededException.class, e -> {
            assertThat(e.timeout()).isEqualTo(Duration.ofMillis(200));
            assertThat(e.timeoutName()).isEqualTo("inventory");
            assertThat(e.getMessage()).isEqualTo("Timeout 'inventory' of 200 ms exceeded");
        });
        assertThat(fired).containsExactly((TimeoutExceededException) thrown);
        assertThat(runs).hasValue(0);
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aResultArrivingAfterTheDeadlineIsDiscarded() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Timeout timeout = timeout(Duration.ofMillis(100)).build();
        FutureTask<Throwable> call = start("caller", () -> catchThrowable(() -> timeout.call(() -> {
            running.countDown();
            finish.await();
            return "late";
        })));
        running.await();

        scheduler.advance(Duration.ofMillis(100));
        assertThat(call.isDone()).isFalse(); // the caller gets the timeout no later than the operation's return
        finish.countDown();

        assertThat(call.get(10, TimeUnit.SECONDS)).isInstanceOf(TimeoutExceededException.class);
    }

    @Test
    void interruptOnTimeoutInterruptsTheCallerAndClearsTheInterruptAfterwards() throws Exception {
        Timeout timeout = timeout(Duration.ofMillis(100)).interruptOnTimeout(true).build();
        CountDownLatch running = new CountDownLatch(1);
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        FutureTask<Throwable> call = start("caller", () -> {
            Throwable thrown = catchThrowable(() -> timeout.call(() -> {
                running.countDown();
                new CountDownLatch(1).await(); // only an interrupt ends this
                return "never";
            }));
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            return thrown;
        });
        running.await();

        scheduler.advance(Duration.ofMillis(100));

        Throwable thrown = call.get(10, TimeUnit.SECONDS);
        assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
        assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
        assertThat(interruptedAfter.get()).isFalse();
    }

    @Test
    void withoutInterruptTheOperationIsNotInterrupted() throws Exception {
        Timeout timeout = timeout(Duration.ofMillis(100)).build();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicReference<Boolean> interruptedInside = new AtomicReference<>();
        FutureTask<Throwable> call = start("caller", () -> catchThrowable(() -> timeout.call(() -> {
            running.countDown();
            finish.await();
            interruptedInside.set(Thread.currentThread().isInterrupted());
            return 1;
        })));
        running.await();
        scheduler.advance(Duration.ofMillis(100));
        finish.countDown();

        assertThat(call.get(10, TimeUnit.SECONDS)).isInstanceOf(TimeoutExceededException.class);
        assertThat(interruptedInside.get()).isFalse();
    }

    @Test
    void asyncTimeoutCompletesTheFutureAtTheDeadlineAndCancelsTheInnerStage() {
        Timeout timeout = timeout(Duration.ofMillis(300)).build();
        CompletableFuture<String> inner = new CompletableFuture<>();

        CompletableFuture<String> result = timeout.callAsync(() -> inner);
        scheduler.advance(Duration.ofMillis(299));
        assertThat(result).isNotDone();
        scheduler.advance(Duration.ofMillis(1));

        assertThat(result.handle((v, e) -> e).join()).isInstanceOf(TimeoutExceededException.class);
        assertThat(inner).isCancelled();
    }

    @Test
    void anAsyncTimeoutAroundARetryInItsDelayIsReportedByTheTimeoutAloneAndEndsTheDelay() {
        List<String> events = new ArrayList<>();
        Retry retry = Retry.builder().name("again").delay(Duration.ofSeconds(1)).scheduler(scheduler)
                .listener(new RetryListener() {
                    @Override
                    public void succeeded(int attempts) {
                        events.add("retry succeeded");
                    }

                    @Override
                    public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
                        events.add("retry failed: " + failure);
                    }
                }).build();
        Timeout timeout = timeout(Duration.ofMillis(500)).onTimeout(exceeded -> events.add("timedOut")).build();
        AtomicInteger attempts = new AtomicInteger();

        CompletableFuture<String> call = Pipeline.of(timeout, retry).callAsync(() -> {
            attempts.incrementAndGet();
            return CompletableFuture.failedFuture(new IOException("down"));
        });
        assertThat(attempts).hasValue(1); // the retry now waits out its 1 s delay
        scheduler.advance(Duration.ofMillis(500));

        assertThat(call.handle((value, failure) -> failure).join()).isInstanceOf(TimeoutExceededException.class);
        assertThat(events).containsExactly("timedOut");
        assertThat(scheduler.pendingTasks()).isZero();
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(attempts).hasValue(1);
    }

    @Test
    void aRefusedDeadlineFailsTheCallBeforeTheOperationRunsOnBothPaths() {
        List<String> events = new ArrayList<>();
        Timeout timeout = timeout(Duration.ofSeconds(1)).listener(new TimeoutListener() {
            @Override
            public void timedOut(TimeoutExceededException exception) {
                events.add("timedOut");
            }

            @Override
            public void finishedInTime(long elapsedNanos) {
                events.add("finishedInTime");
            }
        }).build();
        scheduler.refuse();
        AtomicInteger started = new AtomicInteger();

        Throwable sync = catchThrowable(() -> timeout.call(started::incrementAndGet));
        CompletableFuture<String> done = timeout.callAsync(() -> {
            started.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        });
        CompletableFuture<String> pending = timeout.callAsync(() -> {
            started.incrementAndGet();
            return new CompletableFuture<>();
        });

        assertThat(sync).isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        assertThat(done.handle((value, failure) -> failure).join())
                .isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        assertThat(pending.handle((value, failure) -> failure).join())
                .isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        assertThat(started).as("operations started").hasValue(0);
        assertThat(events).as("a call that never starts reports nothing").isEmpty();
    }

    @Test
    void asyncInTimeRelaysTheResultAndCancelsTheTimer() {
        Timeout timeout = timeout(Duration.ofMillis(300)).build();
        CompletableFuture<String> inner = new CompletableFuture<>();
        CompletableFuture<String> result = timeout.callAsync(() -> inner);

        inner.complete("in time");

        assertThat(result).isCompletedWithValue("in time");
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void anAsyncTimeoutNeverLetsMoreThanTheBulkheadLimitRun() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Policy pipeline = Pipeline.of(timeout(Duration.ofMillis(100)).build(), bulkhead);
        CompletableFuture<String> slowStage = new CompletableFuture<>();
        AtomicInteger running = new AtomicInteger();

        CompletableFuture<String> first = pipeline.callAsync(() -> {
            running.incrementAndGet();
            return slowStage;
        });
        scheduler.advance(Duration.ofMillis(100));
        assertThat(first).isCompletedExceptionally();

        // The first operation's own stage is still running: its slot is still taken.
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        CompletableFuture<String> second = pipeline.callAsync(() -> {
            running.incrementAndGet();
            return CompletableFuture.completedFuture("second");
        });
        assertThat(second).isNotDone();
        assertThat(running).hasValue(1);

        slowStage.complete("late");
        assertThat(second).isCompletedWithValue("second");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anAsyncTimeoutCancelsAQueuedInnerWaiter() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        Policy pipeline = Pipeline.of(timeout(Duration.ofMillis(100)).build(), bulkhead);
        AtomicInteger runs = new AtomicInteger();

        CompletableFuture<Integer> call = pipeline.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        });
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        scheduler.advance(Duration.ofMillis(100));

        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(call.handle((v, e) -> e).join()).isInstanceOf(TimeoutExceededException.class);
        holder.close();
        assertThat(runs).hasValue(0);
    }

    @Test
    void aCancelledOuterSignalIsNotATimeout() {
        CancellationSignal signal = CancellationSignal.create();
        signal.cancel();
        assertThat(catchThrowable(() -> timeout(Duration.ofSeconds(1)).build().call(() -> 1, signal)))
                .isInstanceOf(CancellationException.class);
    }

    @Test
    void tenThousandAsyncTimeoutsHoldNoThreads() {
        Timeout timeout = Timeout.of(Duration.ofHours(1));
        Scheduler.shared().schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
        int threadsBefore = Thread.getAllStackTraces().size();
        List<CompletableFuture<String>> stages = new ArrayList<>();
        List<CompletableFuture<String>> calls = new ArrayList<>();

        for (int i = 0; i < 10_000; i++) {
            CompletableFuture<String> stage = new CompletableFuture<>();
            stages.add(stage);
            calls.add(timeout.callAsync(() -> stage));
        }

        assertThat(Thread.getAllStackTraces().size()).isLessThanOrEqualTo(threadsBefore);
        stages.forEach(stage -> stage.complete("done"));
        assertThat(calls).allMatch(call -> "done".equals(call.getNow(null)));
    }

    @Test
    void badConfigurationFailsFastNamingTheParameter() {
        assertThatThrownBy(() -> Timeout.of(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be positive but was PT0S");
        assertThatThrownBy(() -> Timeout.of(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
        assertThatThrownBy(() -> Timeout.of(null)).isInstanceOf(NullPointerException.class).hasMessage("timeout");
        assertThatThrownBy(() -> Timeout.builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("timeout");
    }
}
