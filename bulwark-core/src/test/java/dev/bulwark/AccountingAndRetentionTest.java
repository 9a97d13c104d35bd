package dev.bulwark;

import static dev.bulwark.BulkheadRaceTest.assertQuiet;
import static dev.bulwark.testing.Threads.startQueued;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.CapturingScheduler;
import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Small, fast checks of two things the long tests prove at scale, so that mutation testing (which leaves the long
 * tests out) sees them too: every call reports exactly one of admitted / rejected / cancelled and every admission
 * exactly one release, with the facts right; and a waiter that ended, however it ended, is no longer reachable from
 * a long-lived signal or from the timer.
 */
class AccountingAndRetentionTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);

    /** Records every event as a word, and the durations. */
    static final class Journal implements BulkheadListener {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Duration> durations = new CopyOnWriteArrayList<>();

        @Override
        public void admitted(long waitedNanos) {
            java.time.Duration waited = java.time.Duration.ofNanos(waitedNanos);
            events.add("admitted");
            durations.add(waited);
        }

        @Override
        public void rejected(Rejection rejection) {
            events.add("rejected:" + rejection.reason() + ":" + rejection.executingCount() + ":"
                    + rejection.queuedCount());
        }

        @Override
        public void cancelled(long waitedNanos) {
            java.time.Duration waited = java.time.Duration.ofNanos(waitedNanos);
            events.add("cancelled");
            durations.add(waited);
        }

        @Override
        public void released(long executionNanos) {
            java.time.Duration executionTime = java.time.Duration.ofNanos(executionNanos);
            events.add("released");
            durations.add(executionTime);
        }
    }

    @Test
    void everyPathReportsOneOutcomeAndEveryAdmissionOneRelease() throws Exception {
        Journal journal = new Journal();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(1))
                .ticker(ticker).scheduler(scheduler).listener(journal).build();

        bulkhead.run(() -> ticker.advance(Duration.ofMillis(3)));
        bulkhead.call(() -> 1);
        bulkhead.tryAcquire().orElseThrow().close();
        bulkhead.callAsync(() -> CompletableFuture.completedFuture(1)).join();
        Pipeline.of(bulkhead).call(() -> 1);
        assertThat(journal.events).containsExactly("admitted", "released", "admitted", "released", "admitted",
                "released", "admitted", "released", "admitted", "released");
        assertThat(journal.durations.get(1)).isEqualTo(Duration.ofMillis(3));

        journal.events.clear();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        CompletableFuture<Permit> refused = bulkhead.acquireAsync();
        assertThat(refused).isCompletedExceptionally();
        ticker.advance(Duration.ofMillis(400));
        waiter.cancel(false);
        CancellationSignal signal = CancellationSignal.create();
        CompletableFuture<Integer> cancelledBySignal = bulkhead.callAsync(() -> CompletableFuture.completedFuture(1),
                signal);
        signal.cancel();
        CompletableFuture<Permit> timedOut = bulkhead.acquireAsync();
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(cancelledBySignal).isCompletedExceptionally();
        assertThat(timedOut).isCompletedExceptionally();
        holder.close();
        assertThat(journal.events).containsExactly("admitted", "rejected:QUEUE_FULL:1:1", "cancelled", "cancelled",
                "rejected:WAIT_TIMEOUT:1:0", "released");
        assertThat(journal.durations).contains(Duration.ofMillis(400));

        journal.events.clear();
        Permit again = bulkhead.acquire();
        CancellationSignal syncSignal = CancellationSignal.create();
        FutureTask<Integer> syncWaiter = startQueued(bulkhead, "sync", () -> bulkhead.call(() -> 1, syncSignal));
        syncSignal.cancel();
        assertThat(syncWaiter).failsWithin(10, TimeUnit.SECONDS);
        again.close();
        assertThat(journal.events).containsExactly("admitted", "cancelled", "released");
        assertQuiet(bulkhead, 1);
    }

    @Test
    void aTimerThatRefusesReportsTheCallCancelledWithTheTimeItWaited() {
        Journal journal = new Journal();
        Scheduler refusing = (task, delay, unit) -> {
            throw new java.util.concurrent.RejectedExecutionException("no timer");
        };
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(1))
                .ticker(ticker).scheduler(refusing).listener(journal).build();
        Permit holder = bulkhead.acquire();

        assertThat(bulkhead.acquireAsync()).isCompletedExceptionally();

        assertThat(journal.events).containsExactly("admitted", "cancelled");
        assertThat(journal.durations).containsExactly(Duration.ZERO, Duration.ZERO);
        holder.close();
        assertQuiet(bulkhead, 1);
    }

    @Test
    void everyWayAnAsyncWaitEndsCancelsItsTimerAndLeavesTheSignal() throws Exception {
        CapturingScheduler timers = new CapturingScheduler();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(4).maxWait(Duration.ofHours(1))
                .ticker(ticker).scheduler(timers).build();
        CancellationSignal longLived = CancellationSignal.create();
        Permit holder = bulkhead.acquire();
        List<WeakReference<Object>> ended = new ArrayList<>();

        CompletableFuture<Permit> granted = bulkhead.acquireAsync(longLived);
        CompletableFuture<Permit> cancelled = bulkhead.acquireAsync(longLived);
        CompletableFuture<Integer> timedOut = bulkhead.callAsync(() -> CompletableFuture.completedFuture(1),
                longLived);
        cancelled.cancel(false);
        timers.task(2).run();
        holder.close();
        granted.join().close();

        assertThat(timedOut).isCompletedExceptionally();
        assertThat(timers.isCancelled(0)).as("timer of the granted waiter").isTrue();
        assertThat(timers.isCancelled(1)).as("timer of the cancelled waiter").isTrue();
        ended.add(new WeakReference<>(granted));
        ended.add(new WeakReference<>(cancelled));
        ended.add(new WeakReference<>(timedOut));
        granted = null;
        cancelled = null;
        timedOut = null;
        timers.forget();
        assertCollected(ended);
        assertThat(longLived.isCancelled()).isFalse();
        assertQuiet(bulkhead, 1);
    }

    @Test
    void aSyncWaiterLeavesItsSignalOnceItRan() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        CancellationSignal longLived = CancellationSignal.create();
        Permit holder = bulkhead.acquire();
        Thread[] waiterThread = new Thread[1];
        FutureTask<Integer> waiter = startQueued(bulkhead, "sync", () -> {
            waiterThread[0] = Thread.currentThread();
            return bulkhead.call(() -> 1, longLived);
        });
        holder.close();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        waiterThread[0].join();

        // The sync waiter's cancellation listener refers to its thread: once closed, the signal keeps neither.
        List<WeakReference<Object>> ended = List.of(new WeakReference<>(waiterThread[0]));
        waiterThread[0] = null;
        assertCollected(ended);
        assertThat(longLived.isCancelled()).isFalse();
    }

    @Test
    void policiesLeaveALongLivedSignalOnceTheCallEnded() throws Exception {
        CancellationSignal longLived = CancellationSignal.create();
        CapturingScheduler timers = new CapturingScheduler();
        List<WeakReference<Object>> ended = new ArrayList<>();
        // A foreign step sees the signal its outer step derived: the Timeout's inner signal, which the link from the
        // caller's long-lived signal must stop referring to once the call ended.
        Policy spy = new Policy() {
            @Override
            public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                   CancellationSignal signal) throws X {
                ended.add(new WeakReference<>(signal));
                return operation.get();
            }

            @Override
            public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                                      CancellationSignal signal) {
                ended.add(new WeakReference<>(signal));
                return CompletableFuture.completedFuture(null).thenCompose(ignored -> operation.get());
            }
        };
        Timeout timeout = Timeout.builder().timeout(Duration.ofSeconds(5)).scheduler(timers).build();
        assertThat(Pipeline.of(timeout, spy).call(() -> "sync", longLived)).isEqualTo("sync");
        assertThat(Pipeline.of(timeout, spy).callAsync(() -> CompletableFuture.completedFuture("async"), longLived)
                .join()).isEqualTo("async");

        Retry retry = Retry.builder().maxRetries(3).delay(Duration.ofSeconds(1)).scheduler(timers).build();
        CompletableFuture<String> retried = retry.callAsync(() -> CompletableFuture.failedFuture(new IOException()),
                longLived);
        retried.cancel(false);
        assertThat(timers.isCancelled(timers.size() - 1)).as("the pending retry delay").isTrue();
        CompletableFuture<String> exhausted = Retry.builder().maxRetries(1).build()
                .callAsync(() -> CompletableFuture.failedFuture(new IOException()), longLived);
        assertThat(exhausted).isCompletedExceptionally();
        ended.add(new WeakReference<>(retried));
        ended.add(new WeakReference<>(exhausted));
        retried = null;
        exhausted = null;

        // An async deadline that fires, and a sync retry delay on a thread that then ends.
        CompletableFuture<String> late = Pipeline.of(Timeout.builder().timeout(Duration.ofSeconds(5)).scheduler(timers)
                .build(), spy).callAsync(CompletableFuture::new, longLived);
        timers.task(timers.size() - 1).run();
        assertThat(late.handle((v, e) -> e).join()).isInstanceOf(TimeoutExceededException.class);
        late = null;
        Thread sleeper = new Thread(() -> catchAll(() -> Retry.builder().maxRetries(1).delay(Duration.ofMillis(1))
                .build().run(() -> {
                    throw new IOException("again");
                }, longLived)), "sleeper");
        sleeper.start();
        sleeper.join();
        ended.add(new WeakReference<>(sleeper));
        sleeper = null;
        timers.forget();

        assertCollected(ended);
        assertThat(longLived.isCancelled()).isFalse();
    }

    private static void catchAll(dev.bulwark.ThrowingRunnable<Exception> action) {
        try {
            action.run();
        } catch (Exception expected) {
            // the outcome is not what this test looks at
        }
    }

    @Test
    void aRetryCancelledByItsSignalDuringADelayReportsTheFailureAndCancelsTheDelay() {
        CapturingScheduler timers = new CapturingScheduler();
        List<String> reported = new CopyOnWriteArrayList<>();
        Retry retry = Retry.builder().maxRetries(3).delay(Duration.ofSeconds(1)).scheduler(timers)
                .listener(new RetryListener() {
                    @Override
                    public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
                        reported.add("failed after " + attempts + ", exhausted " + retriesExhausted + ": "
                                + failure.getClass().getSimpleName());
                    }
                }).build();
        CancellationSignal signal = CancellationSignal.create();
        CompletableFuture<String> result = retry.callAsync(
                () -> CompletableFuture.failedFuture(new IOException()), signal);

        signal.cancel();

        assertThat(result).isCompletedExceptionally();
        assertThat(timers.isCancelled(0)).isTrue();
        assertThat(reported).containsExactly("failed after 1, exhausted false: CancellationException");

        CompletableFuture<String> exhausted = retry.callAsync(() -> CompletableFuture.failedFuture(new IOException()));
        for (int i = 1; i <= 3; i++) {
            timers.task(i).run();
        }
        assertThat(exhausted).isCompletedExceptionally();
        assertThat(reported).endsWith("failed after 4, exhausted true: IOException");
    }

    @Test
    void everyOperationThatTakesTheLockLeavesItFreeForOtherThreads() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(2).build();
        Permit holder = bulkhead.acquire();
        bulkhead.changeMaxWait(Duration.ofHours(1));
        bulkhead.acquireAsync().cancel(false);
        CancellationSignal signal = CancellationSignal.create();
        bulkhead.acquireAsync(signal);
        signal.cancel();
        bulkhead.changeMaxConcurrency(2);
        bulkhead.changeMaxConcurrency(1);
        assertThat(bulkhead.maxConcurrency()).isEqualTo(1);
        assertThat(bulkhead.executingCount()).isEqualTo(1);

        FutureTask<Boolean> elsewhere = new FutureTask<>(() -> {
            CompletableFuture<Permit> queued = bulkhead.acquireAsync();
            bulkhead.changeMaxWait(null);
            bulkhead.changeMaxConcurrency(2);
            queued.join().close();
            return true;
        });
        Thread thread = new Thread(elsewhere, "elsewhere");
        thread.setDaemon(true);
        thread.start();

        assertThat(elsewhere.get(10, TimeUnit.SECONDS)).isTrue();
        holder.close();
        bulkhead.changeMaxConcurrency(1);
        assertQuiet(bulkhead, 1);
    }

    @Test
    void factsAreRightAfterTheLimitWasLoweredAndForEveryWayOfLeaving() {
        Journal journal = new Journal();
        CapturingScheduler timers = new CapturingScheduler();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(2).maxQueue(2).maxWait(Duration.ofSeconds(1))
                .ticker(ticker).scheduler(timers).listener(journal).build();
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();
        bulkhead.changeMaxConcurrency(1);
        CancellationSignal signal = CancellationSignal.create();
        CompletableFuture<Permit> cancelled = bulkhead.acquireAsync(signal);
        CompletableFuture<Permit> timedOut = bulkhead.acquireAsync();
        journal.events.clear();
        journal.durations.clear();

        ticker.advance(Duration.ofMillis(7));
        signal.cancel();
        timers.task(1).run();

        assertThat(cancelled).isCompletedExceptionally();
        assertThat(timers.isCancelled(0)).as("the signal-cancelled waiter's timer").isTrue();
        assertThat(timedOut.handle((p, e) -> ((BulkheadRejectedException) e).rejection()).join().executingCount())
                .as("two still run above the lowered limit of one").isEqualTo(2);
        assertThat(journal.events).containsExactly("cancelled", "rejected:WAIT_TIMEOUT:2:0");
        assertThat(journal.durations).containsExactly(Duration.ofMillis(7));
        first.close();
        second.close();
        assertQuiet(bulkhead, 1);
    }

    @Test
    void aStageThatRefusesACallbackFailsTheCallAndFreesTheSlot() {
        Bulkhead bulkhead = Bulkhead.of(1);
        IllegalStateException refusal = new IllegalStateException("no callbacks here");
        CompletableFuture<String> broken = new CompletableFuture<>() {
            @Override
            public CompletableFuture<String> whenComplete(
                    java.util.function.BiConsumer<? super String, ? super Throwable> action) {
                throw refusal;
            }
        };

        CompletableFuture<String> result = bulkhead.callAsync(() -> broken);

        assertThat(result.handle((v, e) -> e).join()).isSameAs(refusal);
        assertQuiet(bulkhead, 1);
    }

    @Test
    void pipelineCallsReportTheirOwnExecutionTime() {
        Journal journal = new Journal();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).ticker(ticker).listener(journal).build();

        Pipeline.of(bulkhead).call(() -> {
            ticker.advance(Duration.ofMillis(5));
            return 1;
        });
        Pipeline.of(bulkhead).run(() -> ticker.advance(Duration.ofMillis(6)));

        assertThat(journal.durations).containsExactly(Duration.ZERO, Duration.ofMillis(5), Duration.ZERO,
                Duration.ofMillis(6));
    }

    @Test
    void retryReportsEachDelayAndWhetherAFailureExhaustedIt() throws Exception {
        CapturingScheduler timers = new CapturingScheduler();
        List<String> reported = new CopyOnWriteArrayList<>();
        RetryListener listener = new RetryListener() {
            @Override
            public void retryScheduled(RetryEvent event) {
                reported.add("retry after " + event.attempt());
            }

            @Override
            public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
                reported.add("failed after " + attempts + ", exhausted " + retriesExhausted + ": "
                        + failure.getClass().getSimpleName());
            }
        };
        Retry retry = Retry.builder().handle(IOException.class).maxRetries(2).delay(Duration.ofSeconds(1))
                .scheduler(timers).listener(listener).build();

        CompletableFuture<String> async = retry.callAsync(() -> CompletableFuture.failedFuture(new IOException()));
        timers.task(0).run();
        timers.task(1).run();
        assertThat(async).isCompletedExceptionally();
        CompletableFuture<String> unhandled = retry.callAsync(
                () -> CompletableFuture.failedFuture(new IllegalStateException()));
        assertThat(unhandled).isCompletedExceptionally();
        assertThat(reported).containsExactly("retry after 1", "retry after 2", "failed after 3, exhausted true: "
                + "IOException", "failed after 1, exhausted false: IllegalStateException");

        reported.clear();
        Retry refused = Retry.builder().maxRetries(2).delay(Duration.ofSeconds(1)).listener(listener)
                .scheduler((task, delay, unit) -> {
                    throw new java.util.concurrent.RejectedExecutionException("no timer");
                }).build();
        IOException last = new IOException("last");
        assertThat(refused.callAsync(() -> CompletableFuture.<String>failedFuture(last)).handle((v, e) -> e).join())
                .isSameAs(last);
        assertThat(reported).containsExactly("retry after 1", "failed after 1, exhausted false: IOException");

        reported.clear();
        CancellationSignal signal = CancellationSignal.create();
        Retry slow = Retry.builder().maxRetries(2).delay(Duration.ofHours(1)).listener(listener).build();
        Thread[] sleeper = new Thread[1];
        FutureTask<Throwable> sync = new FutureTask<>(() -> {
            sleeper[0] = Thread.currentThread();
            try {
                slow.run(() -> {
                    throw new IOException("again");
                }, signal);
                return null;
            } catch (CancellationException e) {
                return e;
            }
        });
        Thread thread = new Thread(sync, "sync-retry");
        thread.setDaemon(true);
        thread.start();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> sleeper[0] != null && sleeper[0].getState() == Thread.State.TIMED_WAITING);
        signal.cancel();
        assertThat(sync.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
        assertThat(reported).containsExactly("retry after 1", "failed after 1, exhausted false: "
                + "CancellationException");
    }

    private static void assertCollected(List<WeakReference<Object>> references) throws InterruptedException {
        for (int attempt = 0; attempt < 50 && references.stream().anyMatch(r -> r.get() != null); attempt++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(references).as("still reachable").allMatch(reference -> reference.get() == null);
    }
}
