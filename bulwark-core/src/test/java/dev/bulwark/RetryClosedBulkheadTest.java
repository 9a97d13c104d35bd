package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 37: a refusal for {@link Rejection.Reason#CLOSED} is not retried unless the retry was built with
 * {@code retryClosedBulkheads(true)}: a drained bulkhead never admits again, so retrying it only waits out the
 * backoff before the fallback.
 */
class RetryClosedBulkheadTest {

    /**
     * Times a synchronous retry's delays: a delay that starts reads it, so a retry that would wait fails the test
     * at once (instead of parking the test for the backoff).
     */
    private static final Ticker NO_DELAY_MAY_START = () -> {
        throw new AssertionError("the retry started a delay");
    };

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);
    private final List<RetryEvent> retries = new CopyOnWriteArrayList<>();

    private Retry retryingRefusalsWithBackoff() {
        return Retry.builder().handle(BulkheadRejectedException.class)
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(1)).ticker(NO_DELAY_MAY_START)
                .scheduler(scheduler).onRetry(retries::add).build();
    }

    private static Bulkhead drained() {
        Bulkhead bulkhead = Bulkhead.builder().name("drained").maxConcurrency(1).build();
        bulkhead.drain(Duration.ZERO);
        return bulkhead;
    }

    @Test
    void aDrainedBulkheadIsAskedOnceAndItsRefusalReachesTheFallbackUntouchedWithoutABackoff() {
        Retry retry = retryingRefusalsWithBackoff();
        Bulkhead drained = drained();
        List<BulkheadRejectedException> refusals = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> fellBackOn = new AtomicReference<>();
        AtomicInteger ran = new AtomicInteger();

        String result = Fallback.<String>to(failure -> {
            fellBackOn.set(failure);
            return "fallback";
        }).call(() -> retry.call(() -> {
            try {
                return drained.call(() -> "ran " + ran.incrementAndGet());
            } catch (BulkheadRejectedException refused) {
                refusals.add(refused);
                throw refused;
            }
        }));

        assertThat(result).isEqualTo("fallback");
        assertThat(refusals).as("one attempt").singleElement()
                .satisfies(refused -> assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.CLOSED));
        assertThat(fellBackOn.get()).as("the bulkhead's own refusal").isSameAs(refusals.get(0));
        assertThat(retries).as("no retry scheduled, so no backoff").isEmpty();
        assertThat(ran).hasValue(0);
    }

    @Test
    void theReadmePipelineFallsBackAtOnceOnADrainedBulkhead() {
        List<Rejection> rejections = new CopyOnWriteArrayList<>();
        Bulkhead drained = Bulkhead.builder().name("inventory-db").maxConcurrency(20).maxQueue(50)
                .onRejected(rejections::add).build();
        drained.drain(Duration.ZERO);
        Pipeline pipeline = Pipeline.of(retryingRefusalsWithBackoff(), Timeout.of(Duration.ofSeconds(2)), drained);

        Throwable thrown = catchThrowable(() -> pipeline.call(() -> "ran"));

        assertThat(thrown).isInstanceOf(BulkheadRejectedException.class);
        assertThat(((BulkheadRejectedException) thrown).rejection().reason()).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(rejections).as("the bulkhead was asked once").hasSize(1);
        assertThat(retries).isEmpty();
    }

    @Test
    void anAsyncCallToADrainedBulkheadFailsAtOnceWithTheRefusalAndSchedulesNoDelay() {
        Retry retry = retryingRefusalsWithBackoff();
        Bulkhead drained = drained();
        List<Throwable> refusals = new CopyOnWriteArrayList<>();

        CompletableFuture<String> result = retry.callAsync(() -> drained
                .callAsync(() -> CompletableFuture.completedFuture("ran"))
                .whenComplete((value, failure) -> refusals.add(failure)));

        assertThat(refusals).as("one attempt").singleElement().isInstanceOf(BulkheadRejectedException.class);
        assertThat(result).as("failed before callAsync returned").isCompletedExceptionally();
        assertThat(result.handle((value, failure) -> failure).join()).isSameAs(refusals.get(0));
        assertThat(scheduler.pendingTasks()).as("no delay scheduled").isZero();
        assertThat(retries).isEmpty();

        CompletableFuture<String> throughPipeline = Pipeline.of(retry, drained)
                .callAsync(() -> CompletableFuture.completedFuture("ran"));
        assertThat(throughPipeline).isCompletedExceptionally();
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void theDefaultAndAHandleIfPredicateLeaveAClosedRefusalUnhandledToo() {
        Bulkhead drained = drained();
        for (Retry retry : List.of(Retry.builder().ticker(NO_DELAY_MAY_START).delay(Duration.ofSeconds(1)).build(),
                Retry.builder().handleIf(failure -> failure instanceof BulkheadRejectedException)
                        .ticker(NO_DELAY_MAY_START).delay(Duration.ofSeconds(1)).build())) {
            AtomicInteger attempts = new AtomicInteger();

            Throwable thrown = catchThrowable(() -> retry.call(() -> {
                attempts.incrementAndGet();
                return drained.call(() -> "ran");
            }));

            assertThat(thrown).isInstanceOf(BulkheadRejectedException.class);
            assertThat(attempts).as(retry.toString()).hasValue(1);
        }
    }

    @Test
    void retryClosedBulkheadsTrueRetriesAClosedRefusalLikeAnyOther() {
        Bulkhead drained = drained();
        Retry retry = Retry.builder().handle(BulkheadRejectedException.class).maxRetries(2)
                .retryClosedBulkheads(true).build();
        List<BulkheadRejectedException> refusals = new CopyOnWriteArrayList<>();

        Throwable thrown = catchThrowable(() -> retry.call(() -> {
            try {
                return drained.call(() -> "ran");
            } catch (BulkheadRejectedException refused) {
                refusals.add(refused);
                throw refused;
            }
        }));

        assertThat(refusals).hasSize(3);
        assertThat(thrown).as("the last refusal, untouched").isSameAs(refusals.get(2));
        assertThat(retry.toString()).contains("retryClosedBulkheads");
    }

    @Test
    void aRefusalForAnotherReasonIsStillRetried() throws Exception {
        Bulkhead full = Bulkhead.builder().maxConcurrency(1).maxQueue(0).build();
        Retry retry = Retry.builder().handle(BulkheadRejectedException.class, IOException.class).maxRetries(2).build();
        AtomicInteger attempts = new AtomicInteger();

        try (Permit held = full.acquire()) {
            Throwable thrown = catchThrowable(() -> retry.call(() -> {
                attempts.incrementAndGet();
                return full.call(() -> "ran");
            }));

            assertThat(thrown).isInstanceOf(BulkheadRejectedException.class);
            assertThat(((BulkheadRejectedException) thrown).rejection().reason())
                    .isEqualTo(Rejection.Reason.QUEUE_FULL);
        }
        assertThat(attempts).hasValue(3);
    }
}
