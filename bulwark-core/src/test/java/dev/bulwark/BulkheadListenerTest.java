package dev.bulwark;

import static dev.bulwark.testing.Threads.startQueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Issue 7: bulkhead, retry and timeout listeners report each event exactly once, with the right durations. */
class BulkheadListenerTest {

    /** Records events as strings. */
    static final class Recorder implements BulkheadListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void admitted(long waitedNanos) {
            java.time.Duration waited = java.time.Duration.ofNanos(waitedNanos);
            events.add("admitted " + waited.toMillis());
        }

        @Override
        public void rejected(Rejection rejection) {
            events.add("rejected " + rejection.reason() + " " + rejection.waited().toMillis());
        }

        @Override
        public void cancelled(long waitedNanos) {
            java.time.Duration waited = java.time.Duration.ofNanos(waitedNanos);
            events.add("cancelled " + waited.toMillis());
        }

        @Override
        public void released(long executionNanos) {
            java.time.Duration executionTime = java.time.Duration.ofNanos(executionNanos);
            events.add("released " + executionTime.toMillis());
        }
    }

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);

    @Test
    void aCallIsAdmittedThenReleasedWithItsExecutionTime() {
        Recorder recorder = new Recorder();
        Bulkhead bulkhead = Bulkhead.builder().ticker(ticker).listener(recorder).build();

        bulkhead.call(() -> {
            ticker.advance(Duration.ofMillis(30));
            return 1;
        });

        assertThat(recorder.events).containsExactly("admitted 0", "released 30");
    }

    @Test
    void queuedCallsReportTheirWaitAndEveryOutcomeOnce() {
        Recorder recorder = new Recorder();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(3).maxWait(Duration.ofMillis(500))
                .ticker(ticker).scheduler(scheduler).listener(recorder).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Integer> admitted = bulkhead.callAsync(() -> CompletableFuture.completedFuture(1));
        CompletableFuture<Integer> cancelled = bulkhead.callAsync(() -> CompletableFuture.completedFuture(2));
        bulkhead.tryAcquire();
        catchThrowable(() -> Bulkhead.of(1).call(() -> 1)); // another bulkhead: reports nothing here
        ticker.advance(Duration.ofMillis(100));
        cancelled.cancel(false);
        ticker.advance(Duration.ofMillis(100));
        holder.close();
        Permit blocker = bulkhead.acquireAsync().join();
        CompletableFuture<Integer> timedOut = bulkhead.callAsync(() -> CompletableFuture.completedFuture(3));
        assertThat(timedOut).isNotDone();

        scheduler.advance(Duration.ofMillis(500));

        assertThat(admitted).isCompletedWithValue(1);
        assertThat(timedOut).isCompletedExceptionally();
        blocker.close();
        assertThat(recorder.events).containsExactly("admitted 0", "cancelled 100", "released 200", "admitted 200",
                "released 0", "admitted 0", "rejected WAIT_TIMEOUT 500", "released 500");
    }

    @Test
    void aListenerAttachedLaterSeesLaterEventsAndStopsWhenDetached() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).ticker(ticker).build();
        Recorder recorder = new Recorder();
        bulkhead.call(() -> 1);

        Subscription subscription = bulkhead.addListener(recorder);
        bulkhead.call(() -> 2);
        try (Permit held = bulkhead.acquire()) {
            catchThrowable(() -> bulkhead.call(() -> 3));
        }
        subscription.close();
        subscription.close();
        bulkhead.call(() -> 4);

        assertThat(recorder.events).containsExactly("admitted 0", "released 0", "admitted 0",
                "rejected QUEUE_FULL 0", "released 0");
    }

    @Test
    void syncWaitersReportTheirWait() throws Exception {
        Recorder recorder = new Recorder();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).ticker(ticker).listener(recorder)
                .build();
        Permit holder = bulkhead.acquire();
        FutureTask<Integer> waiter = startQueued(bulkhead, "waiter", () -> bulkhead.call(() -> 1));
        ticker.advance(Duration.ofMillis(70));

        holder.close();

        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(recorder.events).containsExactly("admitted 0", "released 70", "admitted 70", "released 0");
    }

    @Test
    void retryAndTimeoutListenersCanBeAttachedLater() throws Exception {
        Retry retry = Retry.builder().maxRetries(2).build();
        List<String> events = new CopyOnWriteArrayList<>();
        Subscription retrySubscription = retry.addListener(new RetryListener() {
            @Override
            public void retryScheduled(RetryEvent event) {
                events.add("retry after " + event.attempt());
            }

            @Override
            public void succeeded(int attempts) {
                events.add("succeeded in " + attempts);
            }

            @Override
            public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
                events.add("failed after " + attempts + (retriesExhausted ? " (exhausted)" : ""));
            }
        });
        Timeout timeout = Timeout.builder().timeout(Duration.ofMillis(50)).scheduler(scheduler).ticker(ticker).build();
        timeout.addListener(new TimeoutListener() {
            @Override
            public void timedOut(TimeoutExceededException exception) {
                events.add("timed out");
            }

            @Override
            public void finishedInTime(long elapsedNanos) {
                java.time.Duration elapsed = java.time.Duration.ofNanos(elapsedNanos);
                events.add("in time " + elapsed.toMillis());
            }
        });
        int[] attempts = {0};

        retry.call(() -> {
            if (++attempts[0] < 2) {
                throw new IllegalStateException();
            }
            return 1;
        });
        catchThrowable(() -> retry.run(() -> {
            throw new IllegalStateException();
        }));
        timeout.call(() -> {
            ticker.advance(Duration.ofMillis(20));
            return 1;
        });
        CompletableFuture<Integer> late = timeout.callAsync(CompletableFuture::new);
        scheduler.advance(Duration.ofMillis(50));
        retrySubscription.close();
        retry.call(() -> 1);

        assertThat(late).isCompletedExceptionally();
        assertThat(events).containsExactly("retry after 1", "succeeded in 2", "retry after 1", "retry after 2",
                "failed after 3 (exhausted)", "in time 20", "timed out");
    }
    /** Overrides {@code admitted} in a superclass: the subclass below must still be told every admission. */
    abstract static class CountingAdmissions implements BulkheadListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void admitted(long waitedNanos, Priority priority) {
            events.add("admitted " + priority);
        }
    }

    /** Overrides only {@code rejected}: a bulkhead skips telling it admissions, which must not lose its refusals. */
    static final class RefusalsOnly implements BulkheadListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void rejected(Rejection rejection) {
            events.add("rejected " + rejection.reason());
        }
    }

    @Test
    void listenersThatInheritAnAdmittedOverrideAreToldAndThoseThatOnlyWantRefusalsStillGetThem() {
        CountingAdmissions inherited = new CountingAdmissions() { };
        RefusalsOnly refusals = new RefusalsOnly();
        Bulkhead bulkhead = Bulkhead.builder().ticker(ticker).maxConcurrency(1).maxQueue(0).listener(inherited)
                .listener(refusals).build();

        bulkhead.call(() -> 1);
        Object refused = catchThrowable(() -> bulkhead.call(() -> bulkhead.call(() -> 2)));
        Recorder late = new Recorder();
        bulkhead.addListener(late);
        bulkhead.call(() -> 3);

        assertThat(refused).isInstanceOf(BulkheadRejectedException.class);
        assertThat(inherited.events).containsExactly("admitted NORMAL", "admitted NORMAL", "admitted NORMAL");
        assertThat(refusals.events).containsExactly("rejected QUEUE_FULL");
        assertThat(late.events).containsExactly("admitted 0", "released 0");
    }
}
