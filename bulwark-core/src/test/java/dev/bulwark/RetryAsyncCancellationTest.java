package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.CapturingScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Cancellation of an asynchronous retry: a signal cancelled between the decision to retry and the start of the delay
 * still ends the call at once, and a caller cancelling the returned future cancels the attempt in flight, so an inner
 * bulkhead's waiter leaves the queue instead of running for nobody. Both failed before: the first waited out the
 * whole delay, the second left the waiter queued and ran the operation once a slot came.
 */
class RetryAsyncCancellationTest {

    @Test
    void aSignalCancelledAsTheRetryIsDecidedEndsTheCallWithoutWaitingOutTheDelay() {
        CapturingScheduler scheduler = new CapturingScheduler();
        CancellationSignal signal = CancellationSignal.create();
        // The retry listener runs after the decision to retry and before the delay starts: the narrowest window.
        Retry retry = Retry.builder().name("cancelled").maxRetries(3).delay(Duration.ofSeconds(30))
                .scheduler(scheduler).onRetry(event -> signal.cancel()).build();
        AtomicInteger attempts = new AtomicInteger();

        CompletableFuture<String> call = retry.callAsync(() -> {
            attempts.incrementAndGet();
            return CompletableFuture.failedFuture(new IOException("down"));
        }, signal);

        assertThat(call).isCompletedExceptionally();
        assertThat(call.handle((value, failure) -> failure).join()).isInstanceOf(CancellationException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void cancellingTheReturnedFutureTakesTheAttemptOutOfAnInnerBulkheadsQueue() {
        Bulkhead bulkhead = Bulkhead.builder().name("inner").maxConcurrency(1).maxQueue(1).build();
        Retry retry = Retry.builder().name("outer").maxRetries(2).build();
        Pipeline pipeline = Pipeline.of(retry, bulkhead);
        AtomicInteger ran = new AtomicInteger();
        Permit holder = bulkhead.acquire();

        CompletableFuture<String> call = pipeline.callAsync(() -> {
            ran.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        });
        assertThat(bulkhead.queuedCount()).isEqualTo(1);

        assertThat(call.cancel(false)).isTrue();
        assertThat(bulkhead.queuedCount()).as("the attempt left the queue").isZero();
        holder.close();
        assertThat(ran).as("the operation never ran").hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aCancelLandingWhileTheOutcomeIsReportedFailsSoTheListenerAndTheCallerAgree() {
        java.util.concurrent.atomic.AtomicReference<CompletableFuture<String>> returned =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean cancelAccepted = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger succeeded = new AtomicInteger();
        Retry retry = Retry.builder().name("racing").maxRetries(2).build();
        retry.addListener(new RetryListener() {
            @Override
            public void succeeded(int attempts) {
                succeeded.incrementAndGet();
                // The caller gives up at the narrowest moment: the outcome is being reported, not yet delivered.
                cancelAccepted.set(returned.get().cancel(false));
            }
        });
        CompletableFuture<String> secondAttempt = new CompletableFuture<>();
        AtomicInteger attempts = new AtomicInteger();

        CompletableFuture<String> call = retry.callAsync(() -> attempts.incrementAndGet() == 1
                ? CompletableFuture.failedFuture(new IOException("down")) : secondAttempt);
        returned.set(call);
        secondAttempt.complete("ok");

        assertThat(succeeded).hasValue(1);
        assertThat(cancelAccepted).as("the reported outcome stands").isFalse();
        assertThat(call).isCompletedWithValue("ok");
    }

    @Test
    void aCancelBeforeTheOutcomeStillWinsAndNothingMoreIsReported() {
        AtomicInteger reported = new AtomicInteger();
        Retry retry = Retry.builder().name("cancelled-first").maxRetries(2).build();
        retry.addListener(new RetryListener() {
            @Override
            public void succeeded(int attempts) {
                reported.incrementAndGet();
            }

            @Override
            public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
                reported.incrementAndGet();
            }
        });
        CompletableFuture<String> secondAttempt = new CompletableFuture<>();
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> call = retry.callAsync(() -> attempts.incrementAndGet() == 1
                ? CompletableFuture.failedFuture(new IOException("down")) : secondAttempt);

        assertThat(call.cancel(false)).isTrue();
        secondAttempt.complete("late");

        assertThat(call).isCancelled();
        assertThat(reported).hasValue(0);
    }
}
