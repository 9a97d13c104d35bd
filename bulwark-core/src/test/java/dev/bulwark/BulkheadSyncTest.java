package dev.bulwark;

import static dev.bulwark.testing.Threads.awaitQueued;
import static dev.bulwark.testing.Threads.start;
import static dev.bulwark.testing.Threads.startParked;
import static dev.bulwark.testing.Threads.startQueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import dev.bulwark.testing.Threads.Parked;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** Behaviours 1–11 of the bulkhead core on the synchronous path. */
class BulkheadSyncTest {

    @Test
    void freeSlotRunsTheOperationOnTheCallingThreadAndReturnsItsResult() {
        Bulkhead bulkhead = Bulkhead.of(2);
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();

        String result = bulkhead.call(() -> {
            ranOn.set(Thread.currentThread());
            assertThat(bulkhead.executingCount()).isEqualTo(1);
            return "done";
        });

        assertThat(result).isEqualTo("done");
        assertThat(ranOn.get()).isSameAs(caller);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void runExecutesAnOperationWithoutResult() {
        Bulkhead bulkhead = Bulkhead.of(1);
        AtomicInteger runs = new AtomicInteger();

        bulkhead.run(runs::incrementAndGet);

        assertThat(runs).hasValue(1);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void waitersAreAdmittedStrictlyInArrivalOrder() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(20).build();
        Permit holder = bulkhead.acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<FutureTask<Integer>> waiters = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            int index = i;
            waiters.add(startQueued(bulkhead, "waiter-" + i, () -> bulkhead.call(() -> {
                order.add(index);
                return index;
            })));
        }

        holder.close();
        for (FutureTask<Integer> waiter : waiters) {
            waiter.get(10, TimeUnit.SECONDS);
        }

        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i);
        }
        assertThat(order).containsExactlyElementsOf(expected);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void aFreedSlotGoesToTheWaiterNotToANewcomer() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        CountDownLatch waiterRunning = new CountDownLatch(1);
        CountDownLatch finishWaiter = new CountDownLatch(1);
        FutureTask<String> waiter = startQueued(bulkhead, "waiter", () -> bulkhead.call(() -> {
            waiterRunning.countDown();
            finishWaiter.await();
            return "waiter";
        }));

        holder.close();

        // The slot was handed to the queued waiter inside close(): a newcomer finds it taken, even before the
        // waiter's thread has woken up.
        assertThat(bulkhead.tryAcquire()).isEmpty();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        assertThat(bulkhead.queuedCount()).isZero();
        waiterRunning.await();
        finishWaiter.countDown();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("waiter");
    }

    @Test
    void aNewcomerNeverOvertakesAQueuedCaller() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(2).maxQueue(5).build();
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();
        List<String> order = new CopyOnWriteArrayList<>();
        FutureTask<Void> early = startQueued(bulkhead, "early", () -> {
            bulkhead.run(() -> order.add("early"));
            return null;
        });
        FutureTask<Void> late = startQueued(bulkhead, "late", () -> {
            bulkhead.run(() -> order.add("late"));
            return null;
        });

        first.close();
        early.get(10, TimeUnit.SECONDS);
        second.close();
        late.get(10, TimeUnit.SECONDS);

        assertThat(order).containsExactly("early", "late");
    }

    @Test
    void fullQueueRejectsAtOnceCallsTheHandlerAndNeverRunsTheOperation() {
        List<Rejection> handled = new ArrayList<>();
        List<Thread> handlerThreads = new ArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).onRejected(rejection -> {
            handled.add(rejection);
            handlerThreads.add(Thread.currentThread());
        }).build();
        AtomicInteger runs = new AtomicInteger();

        try (Permit held = bulkhead.acquire()) {
            BulkheadRejectedException rejected = (BulkheadRejectedException) catchThrowable(
                    () -> bulkhead.call(runs::incrementAndGet));

            assertThat(rejected).isNotNull();
            assertThat(runs).hasValue(0);
            Rejection rejection = rejected.rejection();
            assertThat(rejection.bulkheadName()).isEqualTo("db");
            assertThat(rejection.reason()).isEqualTo(Rejection.Reason.QUEUE_FULL);
            assertThat(rejection.maxConcurrency()).isEqualTo(1);
            assertThat(rejection.maxQueue()).isZero();
            assertThat(rejection.executingCount()).isEqualTo(1);
            assertThat(rejection.queuedCount()).isZero();
            assertThat(rejection.waited()).isEqualTo(Duration.ZERO);
            assertThat(handled).containsExactly(rejection);
            assertThat(handlerThreads).containsExactly(Thread.currentThread());
            assertThat(rejected.getMessage()).contains("db", "QUEUE_FULL", "executing 1 of 1", "queued 0 of 0");
            assertThat(rejected.getStackTrace()).isEmpty();
        }
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void queueFullCountsWaitersAlreadyQueued() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(2).build();
        Permit holder = bulkhead.acquire();
        FutureTask<Integer> first = startQueued(bulkhead, "first", () -> bulkhead.call(() -> 1));
        FutureTask<Integer> second = startQueued(bulkhead, "second", () -> bulkhead.call(() -> 2));

        assertThatThrownBy(() -> bulkhead.call(() -> 3)).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> {
                    assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL);
                    assertThat(e.rejection().queuedCount()).isEqualTo(2);
                    assertThat(e.rejection().maxQueue()).isEqualTo(2);
                });

        holder.close();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void aFakeTickerAndAManualSchedulerEndASyncWaitWithoutRealTime() throws Exception {
        // Found by audit: the waiter parked for the real maxWait (an hour here) before it read the fake ticker again.
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        Bulkhead bulkhead = Bulkhead.builder().name("slow").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofHours(1)).ticker(ticker).scheduler(scheduler).build();
        Permit holder = bulkhead.acquire();
        Parked<Integer> waiter = startParked(bulkhead, "waiter", () -> bulkhead.call(() -> 1));

        scheduler.advance(Duration.ofMinutes(59)); // not yet: the waiter wakes, reads the ticker, waits on
        // Its next wake-up is armed before it parks again (and an unpark before the park still ends that park).
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.pendingTasks() == 1);
        assertThat(waiter.outcome()).isNotDone();
        scheduler.advance(Duration.ofMinutes(1));

        ExecutionException failure =
                (ExecutionException) catchThrowable(() -> waiter.outcome().get(10, TimeUnit.SECONDS));
        assertThat(failure.getCause()).isInstanceOfSatisfying(BulkheadRejectedException.class, e -> {
            assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
            assertThat(e.rejection().waited()).isEqualTo(Duration.ofHours(1));
        });
        assertThat(scheduler.pendingTasks()).isZero();
        holder.close();
    }

    @Test
    void aSyncWaiterGrantedUnderAFakeTickerLeavesNoWakeUpBehind() throws Exception {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofHours(1))
                .ticker(ticker).scheduler(scheduler).build();
        Permit holder = bulkhead.acquire();
        Parked<Integer> waiter = startParked(bulkhead, "waiter", () -> bulkhead.call(() -> 7));
        assertThat(scheduler.pendingTasks()).isEqualTo(1);

        holder.close();

        assertThat(waiter.outcome().get(10, TimeUnit.SECONDS)).isEqualTo(7);
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void aWaiterThatReachesMaxWaitIsRejectedWithWaitTimeoutOnItsOwnThread() throws Exception {
        FakeTicker ticker = new FakeTicker();
        List<Thread> handlerThreads = new CopyOnWriteArrayList<>();
        List<Rejection> handled = new CopyOnWriteArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().name("slow").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMillis(200)).ticker(ticker).onRejected(rejection -> {
                    handled.add(rejection);
                    handlerThreads.add(Thread.currentThread());
                }).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger runs = new AtomicInteger();
        Parked<Integer> waiter = startParked(bulkhead, "waiter", () -> bulkhead.call(runs::incrementAndGet));

        ticker.advance(Duration.ofMillis(200));
        LockSupport.unpark(waiter.thread()); // a spurious wake-up: the waiter must re-read the ticker

        ExecutionException failure =
                (ExecutionException) catchThrowable(() -> waiter.outcome().get(10, TimeUnit.SECONDS));
        assertThat(failure.getCause()).isInstanceOfSatisfying(BulkheadRejectedException.class, e -> {
            assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
            assertThat(e.rejection().waited()).isEqualTo(Duration.ofMillis(200));
            assertThat(e.rejection().executingCount()).isEqualTo(1);
            assertThat(e.rejection().queuedCount()).isZero();
            assertThat(e.getMessage()).contains("slow", "WAIT_TIMEOUT", "waited 200 ms");
        });
        assertThat(runs).hasValue(0);
        assertThat(handled).hasSize(1);
        assertThat(handlerThreads).containsExactly(waiter.thread());
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void maxWaitWithTheRealClockEndsTheWait() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofMillis(20)).build();
        try (Permit held = bulkhead.acquire()) {
            assertThatThrownBy(() -> bulkhead.call(() -> "never"))
                    .isInstanceOfSatisfying(BulkheadRejectedException.class, e -> assertThat(e.rejection().waited())
                            .isGreaterThanOrEqualTo(Duration.ofMillis(20)));
            assertThat(bulkhead.queuedCount()).isZero();
        }
    }

    @Test
    void theSlotIsReleasedOnReturnExceptionAndError() {
        Bulkhead bulkhead = Bulkhead.of(1);

        bulkhead.call(() -> "ok");
        assertThat(bulkhead.executingCount()).isZero();

        assertThatThrownBy(() -> bulkhead.call(() -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(bulkhead.executingCount()).isZero();

        assertThatThrownBy(() -> bulkhead.run(() -> {
            throw new StackOverflowError("deep");
        })).isInstanceOf(StackOverflowError.class);
        assertThat(bulkhead.executingCount()).isZero();

        assertThat(bulkhead.tryAcquire()).isPresent();
    }

    @Test
    void theOperationsExceptionsPassThroughUntouchedAndCheckedOnesKeepTheirType() {
        Bulkhead bulkhead = Bulkhead.of(1);
        IOException thrown = new IOException("disk");

        // The compiler requires IOException to be caught here: X is inferred as IOException.
        IOException caught = null;
        try {
            bulkhead.call(() -> {
                throw thrown;
            });
        } catch (IOException e) {
            caught = e;
        }
        assertThat(caught).isSameAs(thrown);
        assertThat(caught.getSuppressed()).isEmpty();

        Error error = new AssertionError("bad");
        assertThat(catchThrowable(() -> bulkhead.run(() -> {
            throw error;
        }))).isSameAs(error);
    }

    @Test
    void aThrowingHandlerIsSuppressedOnTheRejectionAndLeavesTheBulkheadIntact() {
        RuntimeException handlerFailure = new IllegalStateException("handler broke");
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).onRejected(r -> {
            throw handlerFailure;
        }).build();
        Permit held = bulkhead.acquire();

        Throwable rejected = catchThrowable(() -> bulkhead.call(() -> 1));

        assertThat(rejected).isInstanceOf(BulkheadRejectedException.class);
        assertThat(rejected.getSuppressed()).containsExactly(handlerFailure);
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        held.close();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.call(() -> 2)).isEqualTo(2);
    }

    @Test
    void aPreCancelledSignalRunsNothingTakesNothingQueuesNothingAndSkipsTheHandler() {
        AtomicInteger handled = new AtomicInteger();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).onRejected(r -> handled.incrementAndGet())
                .build();
        CancellationSignal signal = CancellationSignal.create();
        IllegalStateException reason = new IllegalStateException("user left");
        signal.cancel(reason);
        AtomicInteger runs = new AtomicInteger();

        Throwable cancelled = catchThrowable(() -> bulkhead.call(runs::incrementAndGet, signal));

        assertThat(cancelled).isInstanceOf(CancellationException.class).hasCause(reason);
        assertThat(runs).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(handled).hasValue(0);

        // Also when the bulkhead is full: cancellation is checked before anything else.
        try (Permit held = bulkhead.acquire()) {
            assertThat(catchThrowable(() -> bulkhead.call(runs::incrementAndGet, signal)))
                    .isInstanceOf(CancellationException.class);
            assertThat(bulkhead.queuedCount()).isZero();
            assertThat(handled).hasValue(0);
        }
    }

    @Test
    void cancellingTheSignalWhileQueuedLeavesTheQueueAtOnceAndPassesThePlaceOn() throws Exception {
        AtomicInteger handled = new AtomicInteger();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(2).onRejected(r -> handled.incrementAndGet())
                .build();
        Permit holder = bulkhead.acquire();
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger cancelledRuns = new AtomicInteger();
        FutureTask<Integer> cancelledWaiter = startQueued(bulkhead, "cancelled",
                () -> bulkhead.call(cancelledRuns::incrementAndGet, signal));
        FutureTask<String> nextWaiter = startQueued(bulkhead, "next", () -> bulkhead.call(() -> "next"));
        IOException reason = new IOException("client disconnected");

        assertThat(signal.cancel(reason)).isTrue();

        // Removal happened on this thread, inside cancel(): the count drops before the waiter even wakes.
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        Throwable failure = catchThrowable(() -> cancelledWaiter.get(10, TimeUnit.SECONDS)).getCause();
        assertThat(failure).isInstanceOf(CancellationException.class).hasCause(reason);
        holder.close();
        assertThat(nextWaiter.get(10, TimeUnit.SECONDS)).isEqualTo("next");
        assertThat(cancelledRuns).hasValue(0);
        assertThat(handled).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void cancellingTheSignalWhileRunningDoesNotInterruptAndReleasesOnReturn() throws Exception {
        Bulkhead bulkhead = Bulkhead.of(1);
        CancellationSignal signal = CancellationSignal.create();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        FutureTask<Boolean> call = start("runner", () -> bulkhead.call(() -> {
            running.countDown();
            proceed.await();
            return Thread.currentThread().isInterrupted();
        }, signal));
        running.await();

        signal.cancel();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        proceed.countDown();

        assertThat(call.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueKeepsItsInterruptStatusAndGetsCancellation() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        AtomicInteger runs = new AtomicInteger();
        Parked<Throwable> waiter = startParked(bulkhead, "waiter", () -> {
            Throwable thrown = catchThrowable(() -> bulkhead.call(runs::incrementAndGet));
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            return thrown;
        });

        waiter.thread().interrupt();

        Throwable thrown = waiter.outcome().get(10, TimeUnit.SECONDS);
        assertThat(thrown).isInstanceOf(CancellationException.class).hasCauseInstanceOf(InterruptedException.class);
        assertThat(interruptedAfter.get()).isTrue();
        assertThat(runs).hasValue(0);
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anAlreadyInterruptedThreadThatMustWaitIsNotQueued() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        try (Permit held = bulkhead.acquire()) {
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> bulkhead.call(() -> 1)).isInstanceOf(CancellationException.class)
                        .hasCauseInstanceOf(InterruptedException.class);
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(bulkhead.queuedCount()).isZero();
        }
    }

    @Test
    void anInterruptedThreadWithAFreeSlotStillRuns() {
        Bulkhead bulkhead = Bulkhead.of(1);
        Thread.currentThread().interrupt();
        try {
            assertThat(bulkhead.call(() -> "ran")).isEqualTo("ran");
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    @Test
    void manyWaitersCancelledAtOnceLeaveNothingBehind() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(50).build();
        Permit holder = bulkhead.acquire();
        List<CancellationSignal> signals = Collections.synchronizedList(new ArrayList<>());
        List<FutureTask<Integer>> waiters = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            CancellationSignal signal = CancellationSignal.create();
            signals.add(signal);
            waiters.add(startQueued(bulkhead, "w" + i, () -> bulkhead.call(() -> 1, signal)));
        }

        signals.forEach(CancellationSignal::cancel);

        for (FutureTask<Integer> waiter : waiters) {
            assertThat(catchThrowable(() -> waiter.get(10, TimeUnit.SECONDS))).hasCauseInstanceOf(
                    CancellationException.class);
        }
        awaitQueued(bulkhead, 0);
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.tryAcquire()).isPresent();
    }
}
