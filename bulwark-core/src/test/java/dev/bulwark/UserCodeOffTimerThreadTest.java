package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The shared timer thread ({@code bulwark-timer}) decides deadlines but runs no user code: overflow handlers,
 * listeners, callers' continuations, operations uncovered by a timeout and retried attempts all run elsewhere (the
 * common pool). Each test records the threads its user code ran on; before the hand-off each of them ran on the timer
 * thread.
 */
class UserCodeOffTimerThreadTest {

    private final List<String> threads = new CopyOnWriteArrayList<>();

    private void record(String what) {
        threads.add(what + "@" + Thread.currentThread().getName());
    }

    private void assertNoneOnTheTimerThread(int expected) {
        await().atMost(Duration.ofSeconds(30)).until(() -> threads.size() >= expected);
        assertThat(threads).hasSize(expected).noneMatch(entry -> entry.endsWith("@bulwark-timer"));
    }

    @Test
    void anAsyncWaitTimeoutCallsTheHandlerListenersAndContinuationsOffTheTimerThread() {
        Bulkhead bulkhead = Bulkhead.builder().name("timed").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMillis(20))
                .onRejected(rejection -> record("handler"))
                .listener(new BulkheadListener() {
                    @Override
                    public void rejected(Rejection rejection) {
                        record("listener");
                    }
                }).build();
        try (Permit holder = bulkhead.acquire()) {
            CompletableFuture<String> waiter = bulkhead.callAsync(() -> CompletableFuture.completedFuture("never"));
            waiter.whenComplete((value, failure) -> record("continuation"));

            assertNoneOnTheTimerThread(3);
            assertThat(waiter).isCompletedExceptionally();
            assertThat(bulkhead.queuedCount()).isZero();
        }
    }

    @Test
    void anOperationUncoveredByATimedOutHeadStartsOffTheTimerThread() {
        Bulkhead bulkhead = Bulkhead.builder().name("uncovered").maxConcurrency(2).maxQueue(2)
                .maxWait(Duration.ofMillis(20)).build();
        try (Permit holder = bulkhead.acquire()) {
            // The head needs both slots and times out; the light call behind it queued with no maximum wait.
            CompletableFuture<String> heavy = bulkhead.callAsync(CallOptions.weight(2),
                    () -> CompletableFuture.completedFuture("heavy"));
            bulkhead.changeMaxWait(null);
            CompletableFuture<String> light = bulkhead.callAsync(() -> {
                record("operation");
                return CompletableFuture.completedFuture("light");
            });

            assertNoneOnTheTimerThread(1);
            assertThat(light.join()).isEqualTo("light");
            assertThat(heavy).isCompletedExceptionally();
        }
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anAsyncTimeoutFailsTheCallerAndReportsOffTheTimerThread() {
        Timeout timeout = Timeout.builder().name("slow").timeout(Duration.ofMillis(20))
                .onTimeout(exceeded -> record("listener")).build();
        CompletableFuture<String> call = timeout.callAsync(CompletableFuture::new);
        call.whenComplete((value, failure) -> record("continuation"));

        assertNoneOnTheTimerThread(2);
        assertThat(call).isCompletedExceptionally();
    }

    @Test
    void anAsyncRetryRunsItsNextAttemptOffTheTimerThread() {
        Retry retry = Retry.builder().name("again").maxRetries(1).delay(Duration.ofMillis(10)).build();
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> call = retry.callAsync(() -> {
            if (attempts.incrementAndGet() == 1) {
                return CompletableFuture.failedFuture(new IOException("first"));
            }
            record("attempt");
            return CompletableFuture.completedFuture("second");
        });

        assertNoneOnTheTimerThread(1);
        assertThat(call.join()).isEqualTo("second");
    }
}
