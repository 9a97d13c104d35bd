package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkheads;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Audit s30 finding 1: a {@code fallbackMethod} on a {@code CompletableFuture} method must not cut the returned
 * future off from the policies. Cancelling (or completing) it ends the call as it does without a fallback method: a
 * queued waiter leaves the queue and never runs, the retrying stops and the attempt in flight is cancelled.
 */
class AsyncFallbackCancellationTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class))
            .withUserConfiguration(Guarded.class)
            .withPropertyValues("bulwark.bulkheads.b.max-concurrency=1", "bulwark.bulkheads.b.max-queue=1",
                    "bulwark.retries.r.max-retries=50", "bulwark.drain-timeout=0s");

    @Test
    void cancellingTheFutureTakesTheQueuedWaiterOutOfTheBulkhead() {
        runner.run(context -> {
            GuardedService service = context.getBean(GuardedService.class);
            dev.bulwark.Bulkhead b = context.getBean(Bulkheads.class).find("b").orElseThrow();
            CompletableFuture<String> firstGate = new CompletableFuture<>();
            CompletableFuture<String> first = service.limited(firstGate);
            CompletableFuture<String> second = service.limited(new CompletableFuture<>());
            assertThat(b.queuedCount()).isEqualTo(1);

            assertThat(second.cancel(true)).isTrue();

            await().atMost(WAIT).until(() -> b.queuedCount() == 0);
            firstGate.complete("first");
            assertThat(first).succeedsWithin(WAIT).isEqualTo("first");
            await().atMost(WAIT).until(() -> b.executingCount() == 0);
            assertThat(service.limitedCalls()).as("the cancelled waiter never ran").isEqualTo(1);
            assertThat(service.fallbacks()).as("a cancellation takes no fallback").isZero();
        });
    }

    @Test
    void cancellingTheFutureStopsTheRetryingAndCancelsTheAttemptInFlight() {
        runner.run(context -> {
            GuardedService service = context.getBean(GuardedService.class);
            CompletableFuture<String> call = service.retried();
            CompletableFuture<String> inFlight = service.secondAttempt();
            assertThat(service.attempts()).as("the first attempt failed, the second is running").isEqualTo(2);

            assertThat(call.cancel(true)).isTrue();

            await().atMost(WAIT).until(inFlight::isCancelled);
            assertThat(service.attempts()).as("a cancellation is not retried").isEqualTo(2);
            assertThat(service.fallbacks()).isZero();
        });
    }

    @Test
    void completingTheFutureYourselfEndsTheRetryingToo() {
        runner.run(context -> {
            GuardedService service = context.getBean(GuardedService.class);
            CompletableFuture<String> call = service.retried();
            CompletableFuture<String> inFlight = service.secondAttempt();

            assertThat(call.complete("mine")).isTrue();

            await().atMost(WAIT).until(inFlight::isCancelled);
            assertThat(call).isCompletedWithValue("mine");
            assertThat(service.attempts()).isEqualTo(2);
            assertThat(service.fallbacks()).isZero();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Guarded {
        @Bean
        GuardedService guardedService() {
            return new GuardedService();
        }
    }

    /** Asynchronous methods with fallback methods; they count their calls. */
    public static class GuardedService {

        private final AtomicInteger limitedCalls = new AtomicInteger();
        private final AtomicInteger attempts = new AtomicInteger();
        private final AtomicInteger fallbacks = new AtomicInteger();
        private final CompletableFuture<String> secondAttempt = new CompletableFuture<>();

        public int limitedCalls() {
            return limitedCalls.get();
        }

        public int attempts() {
            return attempts.get();
        }

        public int fallbacks() {
            return fallbacks.get();
        }

        public CompletableFuture<String> secondAttempt() {
            return secondAttempt;
        }

        @dev.bulwark.spring.Bulkhead(value = "b", fallbackMethod = "limitedFallback")
        public CompletableFuture<String> limited(CompletableFuture<String> gate) {
            limitedCalls.incrementAndGet();
            return gate;
        }

        CompletableFuture<String> limitedFallback(CompletableFuture<String> gate, Exception failure) {
            fallbacks.incrementAndGet();
            return CompletableFuture.completedFuture("fallback");
        }

        /** The first attempt fails at once; the second never ends by itself. */
        @dev.bulwark.spring.Retry(value = "r", fallbackMethod = "retriedFallback")
        public CompletableFuture<String> retried() {
            return attempts.incrementAndGet() == 1 ? CompletableFuture.failedFuture(new IOException("flaky"))
                    : secondAttempt;
        }

        CompletableFuture<String> retriedFallback(Exception failure) {
            fallbacks.incrementAndGet();
            return CompletableFuture.completedFuture("fallback");
        }
    }
}
