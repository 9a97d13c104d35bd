package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.QueueOrder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Forced interleavings of the WebFlux filter's "admitted at once, or after waiting" decision against a real
 * bulkhead. A request that joined the queue goes on on the filter's scheduler, whenever its grant or refusal
 * comes, also when it comes in the instant between joining the queue and the filter's look at the outcome (forced
 * here with {@link HookedBulkhead}; over real HTTP it happened about 3 times in 160). A request the bulkhead decides
 * at the call goes on synchronously on its own thread.
 */
class ReactiveAdmissionRaceTest {

    private static final String AFTER_WAIT = "after-wait";

    private final Scheduler scheduler = Schedulers.newSingle(AFTER_WAIT);
    private final AtomicReference<Runnable> hook = new AtomicReference<>();
    private final AtomicReference<String> applicationThread = new AtomicReference<>();
    private final AtomicReference<String> refusalThread = new AtomicReference<>();
    private final WebFilterChain application = exchange -> {
        applicationThread.set(Thread.currentThread().getName());
        return Mono.empty();
    };

    @AfterEach
    void disposeScheduler() {
        scheduler.dispose();
    }

    private ReactiveSheddingFilter filterOver(Bulkhead bulkhead) {
        SheddingRoute route = new SheddingRoute(0, PathPatternParser.defaultInstance.parse("/**"), Set.of(),
                new RouteLimiter.Single(HookedBulkhead.wrap(bulkhead, hook)), new KeySource.None(), "-", 503, null,
                "about:blank", RoutePriority.NONE);
        return new ReactiveSheddingFilter(() -> new SheddingRoutes(List.of(route), 0), 0, scheduler);
    }

    /** A request whose refusal, if any, records the thread it is written on (its commit runs there). */
    private MockServerWebExchange request() {
        MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/orders/1"));
        exchange.getResponse().beforeCommit(() -> {
            refusalThread.compareAndSet(null, Thread.currentThread().getName());
            return Mono.empty();
        });
        return exchange;
    }

    @Test
    void aGrantBetweenJoiningTheQueueAndTheFiltersLookGoesOnOnTheScheduler() {
        Bulkhead bulkhead = Bulkhead.builder().name("race").maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        hook.set(() -> {
            assertThat(bulkhead.queuedCount()).as("the request joined the queue").isEqualTo(1);
            HookedBulkhead.onAnotherThread("releasing-request", holder::close);
        });

        filterOver(bulkhead).filter(request(), application).block(Duration.ofSeconds(10));

        assertThat(hook).as("the hook ran").hasValue(null);
        assertThat(applicationThread.get()).as("a request that waited never goes on synchronously")
                .startsWith(AFTER_WAIT);
        // Released by the doFinally after the completion that block() returned on, on the scheduler's thread.
        await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.executingCount() == 0);
    }

    @Test
    void anEvictionBetweenJoiningTheQueueAndTheFiltersLookIsWrittenOnTheScheduler() {
        Bulkhead bulkhead = Bulkhead.builder().name("race").maxConcurrency(1).maxQueue(1)
                .queueOrder(QueueOrder.LIFO).build();
        Permit holder = bulkhead.acquire();
        AtomicReference<CompletableFuture<Void>> newer = new AtomicReference<>();
        hook.set(() -> HookedBulkhead.onAnotherThread("evicting-request", () -> newer.set(
                bulkhead.callAsync(() -> CompletableFuture.<Void>completedFuture(null), CancellationSignal.none()))));
        MockServerWebExchange exchange = request();

        filterOver(bulkhead).filter(exchange, application).block(Duration.ofSeconds(10));

        assertThat(exchange.getResponse().getStatusCode().value()).isEqualTo(503);
        assertThat(exchange.getResponse().getBodyAsString().block()).contains("\"reason\":\"EVICTED\"");
        assertThat(refusalThread.get()).as("a refusal after waiting is never written synchronously")
                .startsWith(AFTER_WAIT);
        assertThat(applicationThread.get()).isNull();
        holder.close();
        assertThat(newer.get()).succeedsWithin(Duration.ofSeconds(10));
    }

    @Test
    void aGrantAfterTheFiltersLookGoesOnOnTheScheduler() {
        Bulkhead bulkhead = Bulkhead.builder().name("queued").maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        MockServerWebExchange exchange = request();

        Mono<Void> response = filterOver(bulkhead).filter(exchange, application).cache();
        response.subscribe();
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        HookedBulkhead.onAnotherThread("releasing-request", holder::close);
        response.block(Duration.ofSeconds(10));

        assertThat(applicationThread.get()).startsWith(AFTER_WAIT);
        await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.executingCount() == 0);
    }

    @Test
    void aFreeSlotGoesOnSynchronouslyOnTheCallingThread() {
        Bulkhead bulkhead = Bulkhead.builder().name("free").maxConcurrency(1).maxQueue(1).build();

        filterOver(bulkhead).filter(request(), application).block(Duration.ofSeconds(10));

        assertThat(applicationThread.get()).isEqualTo(Thread.currentThread().getName());
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aFullQueueIsAnsweredSynchronouslyOnTheCallingThread() {
        Bulkhead bulkhead = Bulkhead.builder().name("full").maxConcurrency(1).maxQueue(0).build();
        Permit holder = bulkhead.acquire();
        MockServerWebExchange exchange = request();

        filterOver(bulkhead).filter(exchange, application).block(Duration.ofSeconds(10));

        assertThat(exchange.getResponse().getStatusCode().value()).isEqualTo(503);
        assertThat(exchange.getResponse().getBodyAsString().block()).contains("\"reason\":\"QUEUE_FULL\"");
        assertThat(refusalThread.get()).isEqualTo(Thread.currentThread().getName());
        holder.close();
    }
}
