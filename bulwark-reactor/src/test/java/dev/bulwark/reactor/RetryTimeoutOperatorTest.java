package dev.bulwark.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.Pipeline;
import dev.bulwark.Retry;
import dev.bulwark.RetryListener;
import dev.bulwark.Timeout;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.testing.CountingListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Issue 10: retry, timeout and whole pipelines applied to Mono and Flux through the same operator. */
class RetryTimeoutOperatorTest {

    private static final Duration VERIFY = Duration.ofSeconds(10);

    @Test
    void retryResubscribesOnAHandledFailureAndReportsToItsListeners() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger succeededAfter = new AtomicInteger();
        Retry retry = Retry.builder().handle(UncheckedIOException.class).maxRetries(3).delay(Duration.ofMillis(5))
                .listener(new RetryListener() {
                    @Override
                    public void succeeded(int attemptCount) {
                        succeededAfter.set(attemptCount);
                    }
                }).build();
        Mono<String> flaky = Mono.fromCallable(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw new UncheckedIOException(new IOException("flaky"));
            }
            return "ok";
        });

        StepVerifier.create(flaky.transformDeferred(BulwarkOperators.retry(retry))).expectNext("ok")
                .expectComplete().verify(VERIFY);

        assertThat(attempts).hasValue(3);
        // Reported just after the result is delivered, on the thread that delivered it.
        await().atMost(VERIFY).untilAsserted(() -> assertThat(succeededAfter).hasValue(3));
    }

    @Test
    void anUnhandledFailurePassesThroughUntouchedAtOnce() {
        IllegalArgumentException bad = new IllegalArgumentException("bad");
        AtomicInteger attempts = new AtomicInteger();
        Retry retry = Retry.builder().handle(UncheckedIOException.class).build();

        StepVerifier.create(Mono.error(bad).doOnSubscribe(s -> attempts.incrementAndGet())
                        .transformDeferred(BulwarkOperators.retry(retry)))
                .expectErrorSatisfies(failure -> assertThat(failure).isSameAs(bad)).verify(VERIFY);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void aFluxIsResubscribedFromTheStartAndDemandCarriesOver() {
        AtomicInteger attempts = new AtomicInteger();
        Flux<Integer> source = Flux.defer(() -> attempts.incrementAndGet() == 1
                ? Flux.concat(Flux.just(1, 2), Flux.error(new UncheckedIOException(new IOException("reset"))))
                : Flux.just(1, 2, 3));
        Retry retry = Retry.builder().handle(UncheckedIOException.class).build();

        StepVerifier.create(source.transformDeferred(BulwarkOperators.retry(retry)), 3)
                .expectNext(1, 2, 1).thenRequest(2).expectNext(2, 3).expectComplete().verify(VERIFY);
    }

    @Test
    void aTimeoutCancelsTheSourceAndSignalsTimeoutExceeded() {
        AtomicBoolean cancelled = new AtomicBoolean();
        Timeout timeout = Timeout.of(Duration.ofMillis(50));

        StepVerifier.create(Mono.never().doOnCancel(() -> cancelled.set(true))
                        .transformDeferred(BulwarkOperators.timeout(timeout)))
                .expectError(TimeoutExceededException.class).verify(VERIFY);

        assertThat(cancelled).isTrue();
    }

    @Test
    void aPipelineGivesEachAttemptItsDeadlineAndSlotAndReleasesTheAbandonedOne() {
        CountingListener events = new CountingListener();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).listener(events).build();
        AtomicInteger attempts = new AtomicInteger();
        Mono<String> firstHangs = Mono.defer(() -> attempts.incrementAndGet() == 1 ? Mono.never() : Mono.just("ok"));
        Pipeline pipeline = Pipeline.of(Retry.builder().handle(TimeoutExceededException.class).build(),
                Timeout.of(Duration.ofMillis(50)), bulkhead);

        StepVerifier.create(firstHangs.transformDeferred(BulwarkOperators.policy(pipeline))).expectNext("ok")
                .expectComplete().verify(VERIFY);

        assertThat(attempts).hasValue(2);
        assertThat(events.admitted).hasValue(2);
        assertThat(events.released).as("the timed-out attempt gave its slot back").hasValue(2);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void cancellingDuringARetryDelayStopsRetryingAndReportsACancellation() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<Throwable> finalFailure = new AtomicReference<>();
        Retry retry = Retry.builder().delay(Duration.ofMinutes(10)).listener(new RetryListener() {
            @Override
            public void failed(int attemptCount, Throwable failure, boolean retriesExhausted) {
                finalFailure.set(failure);
            }
        }).build();

        Disposable subscription = Mono.error(new IllegalStateException("down"))
                .doOnSubscribe(s -> attempts.incrementAndGet()).transformDeferred(BulwarkOperators.retry(retry))
                .subscribe();
        subscription.dispose();

        assertThat(attempts).hasValue(1);
        await().atMost(VERIFY).untilAsserted(() -> assertThat(finalFailure.get())
                .isInstanceOf(CancellationException.class));
    }
}
