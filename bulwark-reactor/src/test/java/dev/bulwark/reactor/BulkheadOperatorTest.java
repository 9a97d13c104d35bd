package dev.bulwark.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Pipeline;
import dev.bulwark.Rejection;
import dev.bulwark.Retry;
import dev.bulwark.testing.CountingListener;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;

/** Issue 10: the bulkhead operator admits, queues, refuses and releases exactly like the bulkhead itself. */
class BulkheadOperatorTest {

    private static final Duration VERIFY = Duration.ofSeconds(10);

    private final CountingListener events = new CountingListener();
    private final Bulkhead bulkhead = Bulkhead.builder().name("inventory-db").maxConcurrency(1).maxQueue(1)
            .listener(events).build();

    @Test
    void aMonoRunsUnderTheBulkheadAndReleasesItsSlotOnCompletion() {
        Mono<String> mono = Mono.fromSupplier(() -> "stock:" + bulkhead.executingCount())
                .transformDeferred(BulwarkOperators.bulkhead(bulkhead));

        StepVerifier.create(mono).expectNext("stock:1").expectComplete().verify(VERIFY);

        assertThat(bulkhead.executingCount()).isZero();
        assertThat(events.released).hasValue(1);
    }

    @Test
    void aSecondSubscriberWaitsWithoutSubscribingTheSourceAndAThirdIsRefused() {
        Sinks.One<String> first = Sinks.one();
        AtomicInteger subscriptions = new AtomicInteger();
        Mono<String> slow = first.asMono().doOnSubscribe(s -> subscriptions.incrementAndGet())
                .transformDeferred(BulwarkOperators.bulkhead(bulkhead));
        Mono<String> quick = Mono.fromSupplier(() -> "quick").doOnSubscribe(s -> subscriptions.incrementAndGet())
                .transformDeferred(BulwarkOperators.bulkhead(bulkhead));

        slow.subscribe();
        Mono<String> waiting = quick.cache();
        waiting.subscribe();

        assertThat(bulkhead.executingCount()).isEqualTo(1);
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        assertThat(subscriptions).as("only the admitted subscriber reached the source").hasValue(1);
        StepVerifier.create(Mono.just("refused").transformDeferred(BulwarkOperators.bulkhead(bulkhead)))
                .expectErrorSatisfies(failure -> assertThat(failure).isInstanceOf(BulkheadRejectedException.class)
                        .extracting(f -> ((BulkheadRejectedException) f).rejection().reason())
                        .isEqualTo(Rejection.Reason.QUEUE_FULL))
                .verify(VERIFY);

        first.tryEmitValue("slow");

        StepVerifier.create(waiting).expectNext("quick").expectComplete().verify(VERIFY);
        assertThat(subscriptions).hasValue(2);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(events.admitted).hasValue(2);
        assertThat(events.released).hasValue(2);
    }

    @Test
    void cancellingWhileQueuedRemovesTheWaiterAndNeverSubscribesTheSource() {
        Sinks.One<String> first = Sinks.one();
        first.asMono().transformDeferred(BulwarkOperators.bulkhead(bulkhead)).subscribe();
        AtomicInteger subscriptions = new AtomicInteger();
        Disposable queued = Mono.just("never").doOnSubscribe(s -> subscriptions.incrementAndGet())
                .transformDeferred(BulwarkOperators.bulkhead(bulkhead)).subscribe();
        assertThat(bulkhead.queuedCount()).isEqualTo(1);

        queued.dispose();

        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(events.cancelled).hasValue(1);
        first.tryEmitValue("done");
        assertThat(subscriptions).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(events.admitted).hasValue(1);
        assertThat(events.released).hasValue(1);
    }

    @Test
    void theSlotIsReleasedExactlyOnceOnCompleteErrorAndCancel() {
        IllegalStateException boom = new IllegalStateException("boom");

        StepVerifier.create(Flux.just(1, 2, 3).transformDeferred(BulwarkOperators.bulkhead(bulkhead)))
                .expectNext(1, 2, 3).expectComplete().verify(VERIFY);
        StepVerifier.create(Flux.concat(Flux.just(1), Flux.error(boom))
                        .transformDeferred(BulwarkOperators.bulkhead(bulkhead)))
                .expectNext(1).expectErrorSatisfies(failure -> assertThat(failure).isSameAs(boom)).verify(VERIFY);
        TestPublisher<Integer> endless = TestPublisher.create();
        StepVerifier.create(endless.flux().transformDeferred(BulwarkOperators.bulkhead(bulkhead)))
                .then(() -> endless.emit(1)).expectNext(1).thenCancel().verify(VERIFY);

        endless.assertCancelled();
        assertThat(events.admitted).hasValue(3);
        assertThat(events.released).hasValue(3);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void backpressureIsHonoured() {
        AtomicInteger requestedUpstream = new AtomicInteger();
        Flux<Integer> flux = Flux.range(1, 10).doOnRequest(n -> requestedUpstream.addAndGet((int) n))
                .transformDeferred(BulwarkOperators.bulkhead(bulkhead));

        StepVerifier.create(flux, 3).expectNext(1, 2, 3).then(() -> assertThat(requestedUpstream).hasValue(3))
                .thenRequest(2).expectNext(4, 5).thenCancel().verify(VERIFY);

        assertThat(requestedUpstream).hasValue(5);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void eachSubscriptionTakesItsOwnSlot() {
        Bulkhead two = Bulkhead.builder().maxConcurrency(2).build();
        Sinks.Empty<Void> gate = Sinks.empty();
        Mono<Void> held = gate.asMono().transformDeferred(BulwarkOperators.bulkhead(two));

        held.subscribe();
        held.subscribe();
        assertThat(two.executingCount()).isEqualTo(2);
        StepVerifier.create(held).expectError(BulkheadRejectedException.class).verify(VERIFY);

        gate.tryEmitEmpty();
        assertThat(two.executingCount()).isZero();
    }

    @Test
    void aSourcesOwnCompletionExceptionPassesThroughAsTheSameInstance() {
        CompletionException own = new CompletionException(new IOException("reset"));

        StepVerifier.create(Mono.error(own).transformDeferred(BulwarkOperators.bulkhead(bulkhead)))
                .expectErrorSatisfies(failure -> assertThat(failure).isSameAs(own)).verify(VERIFY);
        StepVerifier.create(Flux.concat(Flux.just(1), Flux.error(own))
                        .transformDeferred(BulwarkOperators.policy(Pipeline.of(Retry.builder().maxRetries(1).build(),
                                bulkhead))))
                .expectNext(1, 1).expectErrorSatisfies(failure -> assertThat(failure).isSameAs(own)).verify(VERIFY);
        assertThat(bulkhead.executingCount()).isZero();
    }
}
