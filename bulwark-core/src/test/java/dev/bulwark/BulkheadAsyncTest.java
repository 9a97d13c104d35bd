package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Behaviours 12–15 of the bulkhead core: the asynchronous path. */
class BulkheadAsyncTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);

    private Bulkhead.Builder builder() {
        return Bulkhead.builder().ticker(ticker).scheduler(scheduler);
    }

    @Test
    void aFreeSlotStartsTheOperationOnTheCallerAndRelaysItsResult() {
        Bulkhead bulkhead = builder().maxConcurrency(1).build();
        CompletableFuture<String> stage = new CompletableFuture<>();
        AtomicReference<Thread> startedOn = new AtomicReference<>();

        CompletableFuture<String> result = bulkhead.callAsync(() -> {
            startedOn.set(Thread.currentThread());
            return stage;
        });

        assertThat(startedOn.get()).isSameAs(Thread.currentThread());
        assertThat(result).isNotDone();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        stage.complete("value");
        assertThat(result).isCompletedWithValue("value");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anAlreadyCompletedStageReleasesAtOnce() {
        Bulkhead bulkhead = builder().maxConcurrency(1).build();

        CompletableFuture<Integer> result = bulkhead.callAsync(() -> CompletableFuture.completedFuture(42));

        assertThat(result).isCompletedWithValue(42);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void rejectionCompletesTheFutureExceptionallyInsteadOfThrowing() {
        List<Thread> handlerThreads = new ArrayList<>();
        Bulkhead bulkhead = builder().maxConcurrency(1).onRejected(r -> handlerThreads.add(Thread.currentThread()))
                .build();
        CompletableFuture<String> blocker = new CompletableFuture<>();
        bulkhead.callAsync(() -> blocker);
        AtomicInteger runs = new AtomicInteger();

        CompletableFuture<Integer> rejected = bulkhead.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        });

        assertThat(rejected).isCompletedExceptionally();
        assertThat(catchThrowable(rejected::join)).hasCauseInstanceOf(BulkheadRejectedException.class);
        assertThat(runs).hasValue(0);
        assertThat(handlerThreads).containsExactly(Thread.currentThread());
        blocker.complete("done");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void theSlotIsHeldUntilTheOperationsOwnStageCompletesEvenIfTheCallerCancels() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).build();
        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<String> result = bulkhead.callAsync(() -> stage);

        result.cancel(true);
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        CompletableFuture<String> next = bulkhead.callAsync(() -> CompletableFuture.completedFuture("next"));
        assertThat(next).isNotDone();
        result.complete("ignored");
        assertThat(bulkhead.executingCount()).isEqualTo(1);

        stage.complete("finally");
        assertThat(next).isCompletedWithValue("next");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void theReturnedFutureCarriesTheStagesOwnExceptionNotDoubleWrapped() {
        Bulkhead bulkhead = builder().maxConcurrency(1).build();
        IOException failure = new IOException("io");

        CompletableFuture<String> direct = bulkhead.callAsync(() -> CompletableFuture.failedFuture(failure));
        CompletableFuture<String> viaDependent = bulkhead.callAsync(
                () -> CompletableFuture.completedFuture("x").thenApply(x -> {
                    throw new CompletionException(failure);
                }));
        CompletableFuture<String> pending = new CompletableFuture<>();
        CompletableFuture<String> later = bulkhead.callAsync(() -> pending);
        pending.completeExceptionally(failure);

        for (CompletableFuture<String> result : List.of(direct, viaDependent, later)) {
            assertThat(result.handle((value, error) -> error).join()).isSameAs(failure);
            Throwable thrown = catchThrowable(() -> result.get());
            assertThat(thrown).isInstanceOf(ExecutionException.class).hasCause(failure);
        }
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anOperationThatThrowsOrReturnsNullCompletesExceptionallyAndReleases() {
        Bulkhead bulkhead = builder().maxConcurrency(1).build();
        IllegalStateException failure = new IllegalStateException("supplier broke");

        CompletableFuture<String> thrown = bulkhead.callAsync(() -> {
            throw failure;
        });
        CompletableFuture<String> nulled = bulkhead.callAsync(() -> null);

        assertThat(thrown.handle((v, e) -> e).join()).isSameAs(failure);
        assertThat(nulled.handle((v, e) -> e).join()).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("returned null");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void queuedAsyncCallsStartInArrivalOrderOnTheReleasingThread() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(10).build();
        Permit holder = bulkhead.acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int index = i;
            results.add(bulkhead.callAsync(() -> {
                order.add(index);
                threads.add(Thread.currentThread());
                return CompletableFuture.completedFuture(index);
            }));
        }
        assertThat(order).isEmpty();
        assertThat(bulkhead.queuedCount()).isEqualTo(10);

        holder.close();

        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(threads).containsOnly(Thread.currentThread());
        for (int i = 0; i < 10; i++) {
            assertThat(results.get(i)).isCompletedWithValue(i);
        }
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void cancellingTheReturnedFutureWhileQueuedRemovesTheCall() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger runs = new AtomicInteger();
        CompletableFuture<Integer> queued = bulkhead.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        });
        assertThat(bulkhead.queuedCount()).isEqualTo(1);

        queued.cancel(false);

        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(runs).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void cancellingTheSignalWhileQueuedRemovesTheCallAndFailsItsFuture() {
        AtomicInteger handled = new AtomicInteger();
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).onRejected(r -> handled.incrementAndGet()).build();
        Permit holder = bulkhead.acquire();
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger runs = new AtomicInteger();
        CompletableFuture<Integer> queued = bulkhead.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        }, signal);
        IOException reason = new IOException("gone");

        signal.cancel(reason);

        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(queued.handle((v, e) -> e).join()).isInstanceOf(CancellationException.class).hasCause(reason);
        holder.close();
        assertThat(runs).hasValue(0);
        assertThat(handled).hasValue(0);
    }

    @Test
    void aPreCancelledSignalCompletesTheFutureWithCancellationAndTakesNothing() {
        Bulkhead bulkhead = builder().maxConcurrency(1).build();
        CancellationSignal signal = CancellationSignal.create();
        signal.cancel();

        CompletableFuture<Integer> result = bulkhead.callAsync(() -> CompletableFuture.completedFuture(1), signal);

        assertThat(result.handle((v, e) -> e).join()).isInstanceOf(CancellationException.class);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anAsyncWaitTimesOutOnTheTimerThreadWithTheHandlerRunThere() {
        List<Rejection> handled = new ArrayList<>();
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(2))
                .onRejected(handled::add).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger runs = new AtomicInteger();
        CompletableFuture<Integer> queued = bulkhead.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        });

        scheduler.advance(Duration.ofMillis(1999));
        assertThat(queued).isNotDone();
        scheduler.advance(Duration.ofMillis(1));

        assertThat(queued.handle((v, e) -> e).join()).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> assertThat(e.rejection().waited()).isEqualTo(Duration.ofSeconds(2)));
        assertThat(handled).extracting(Rejection::reason).containsExactly(Rejection.Reason.WAIT_TIMEOUT);
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(runs).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aGrantedAsyncWaiterCancelsItsTimer() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(2)).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Integer> queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture(1));
        assertThat(scheduler.pendingTasks()).isEqualTo(1);

        holder.close();

        assertThat(queued).isCompletedWithValue(1);
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void aSchedulerThatRefusesTheTimerFailsTheCallInsteadOfLettingItWaitForever() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(2)).build();
        Permit holder = bulkhead.acquire();
        scheduler.refuse();
        AtomicInteger runs = new AtomicInteger();

        CompletableFuture<Integer> queued = bulkhead.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        });

        assertThat(queued.handle((v, e) -> e).join()).isInstanceOf(RejectedExecutionException.class);
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(runs).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void queuedAsyncCallsHoldNoThreadAndTimeOutOnOneSharedTimer() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(100_000).maxWait(Duration.ofHours(1))
                .build();
        Permit holder = bulkhead.acquire();
        // Make sure the shared timer exists before counting, so the count compares like with like.
        Scheduler.shared().schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
        int threadsBefore = Thread.getAllStackTraces().size();
        CancellationSignal signal = CancellationSignal.create();
        List<CompletableFuture<Integer>> results = new ArrayList<>(100_000);

        for (int i = 0; i < 100_000; i++) {
            results.add(bulkhead.callAsync(() -> CompletableFuture.completedFuture(1), signal));
        }

        assertThat(bulkhead.queuedCount()).isEqualTo(100_000);
        assertThat(Thread.getAllStackTraces().size()).isLessThanOrEqualTo(threadsBefore);
        signal.cancel();
        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(results).allMatch(CompletableFuture::isCompletedExceptionally);
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void drainingAHundredThousandImmediatelyCompletingOperationsDoesNotOverflowTheStack() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(100_000).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        List<CompletableFuture<Integer>> results = new ArrayList<>(100_000);
        for (int i = 0; i < 100_000; i++) {
            int index = i;
            // Alternate the two completion paths: already-successful (relayed inline) and already-failed
            // (relayed through whenComplete).
            results.add(bulkhead.callAsync(() -> {
                if (next.getAndIncrement() != index) {
                    outOfOrder.incrementAndGet();
                }
                return index % 2 == 0 ? CompletableFuture.completedFuture(index)
                        : CompletableFuture.failedFuture(new IllegalStateException("odd " + index));
            }));
        }

        holder.close();

        assertThat(next).hasValue(100_000);
        assertThat(outOfOrder).hasValue(0);
        assertThat(results).allMatch(CompletableFuture::isDone);
        assertThat(results.get(99_998)).isCompletedWithValue(99_998);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void drainingThroughDependentStagesAlsoStaysShallow() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(100_000).build();
        Permit holder = bulkhead.acquire();
        List<CompletableFuture<Integer>> results = new ArrayList<>(100_000);
        for (int i = 0; i < 100_000; i++) {
            int index = i;
            results.add(bulkhead.callAsync(() -> minimalStage(index)));
        }

        holder.close();

        assertThat(results).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aBlockingCallInsideACompletionCallbackDoesNotDeadlockOnAGrantHeldBackByTheDrain() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(3).build();
        Permit holder = bulkhead.acquire();
        AtomicReference<String> fromCallback = new AtomicReference<>();
        CompletableFuture<String> first = bulkhead.callAsync(() -> CompletableFuture.completedFuture("first"));
        CompletableFuture<String> second = bulkhead.callAsync(() -> CompletableFuture.completedFuture("second"));
        // Releasing the holder starts the first call inside this thread's drain loop; its completion hands the
        // slot to the second call, which the loop holds back until the first call's callbacks have run. The
        // callback below blocks in the bulkhead: it must not wait for the slot its own thread holds back.
        first.thenRun(() -> fromCallback.set(bulkhead.call(() -> "blocking call in callback")));

        Thread releaser = new Thread(holder::close);
        releaser.setDaemon(true);
        releaser.start();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(releaser.isAlive()).as("releasing thread deadlocked").isFalse();
        assertThat(fromCallback.get()).isEqualTo("blocking call in callback");
        assertThat(second).isCompletedWithValue("second");
        assertThat(bulkhead.executingCount()).isZero();
    }

    /** A stage that is not a CompletableFuture, so the bulkhead must use whenComplete on it. */
    private static CompletionStage<Integer> minimalStage(int value) {
        return CompletableFuture.completedFuture(value).minimalCompletionStage();
    }
}
