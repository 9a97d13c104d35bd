package dev.bulwark.spring.spring7;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.Advised;
import org.springframework.resilience.annotation.ConcurrencyLimitBeanPostProcessor;
import org.springframework.resilience.annotation.RetryAnnotationBeanPostProcessor;

/**
 * What Bulwark adds when it serves {@code @ConcurrencyLimit} ({@code bulwark.spring-annotations.enabled=true}), in
 * the application of {@link ConcurrencyLimitComparisonTest}, which also declares {@code @EnableResilientMethods}:
 * Spring's throttle is gone (never applied twice), the bulkheads are named by bean and method, configured under
 * {@code bulwark.bulkheads[...]}, and listed by {@code /actuator/bulwark}.
 */
class BulwarkServesConcurrencyLimitTest {

    private static RunningResilientApp app;

    @BeforeAll
    static void start() {
        app = RunningResilientApp.start("bulwark.spring-annotations.enabled=true",
                "bulwark.bulkheads[throttled.block].max-queue=1",
                "bulwark.bulkheads[throttled.brief].max-wait=50ms");
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void springsThrottleIsRemovedAndBulwarksAppliesOnce() {
        assertThat(app.context().getBeanNamesForType(ConcurrencyLimitBeanPostProcessor.class)).isEmpty();
        // @EnableResilientMethods's @Retryable is Bulwark's too.
        assertThat(app.context().getBeanNamesForType(RetryAnnotationBeanPostProcessor.class)).isEmpty();
        Advised proxy = (Advised) app.context().getBean(ResilientApp.Throttled.class);
        assertThat(Arrays.stream(proxy.getAdvisors()).map(advisor -> advisor.getAdvice().getClass().getName()))
                .filteredOn(name -> name.contains("ConcurrencyLimit"))
                .containsExactly("dev.bulwark.spring.internal.ConcurrencyLimitInterceptor");
    }

    @Test
    void aBoundedQueueRefusesTheCallerSpringWouldHaveBlocked() {
        // Limit 2, queue 1: the fourth caller is refused at once, where Spring's own throttle would park it.
        CompletableFuture<HttpResponse<String>> first = app.get("/block");
        CompletableFuture<HttpResponse<String>> second = app.get("/block");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.holds().inside("block") == 2);
        CompletableFuture<HttpResponse<String>> queued = app.get("/block");
        Bulkhead bulkhead = app.context().getBean(Bulkheads.class).find("throttled.block").orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.queuedCount() == 1);

        HttpResponse<String> refused = app.get("/block").join();

        assertThat(RunningResilientApp.seen(refused)).isEqualTo("429 org.springframework.resilience."
                + "InvocationRejectedException: Concurrency limit reached: 2 (QUEUE_FULL) - not allowed to enter "
                + "dev.bulwark.spring.spring7.ResilientApp$Throttled.block [target throttled]");
        assertThat(refused.headers().firstValue("X-Cause").orElseThrow())
                .startsWith("dev.bulwark.BulkheadRejectedException");
        app.holds().release("block", 3);
        assertThat(RunningResilientApp.seen(first.join())).isEqualTo("200 block done");
        assertThat(RunningResilientApp.seen(second.join())).isEqualTo("200 block done");
        assertThat(RunningResilientApp.seen(queued.join())).isEqualTo("200 block done");
    }

    @Test
    void aMaximumWaitRefusesAWaiterThatGotNoSlotInTime() {
        CompletableFuture<HttpResponse<String>> held = app.get("/brief");
        await().atMost(Duration.ofSeconds(10)).until(() -> app.holds().inside("brief") == 1);

        HttpResponse<String> refused = app.get("/brief").join();

        assertThat(RunningResilientApp.seen(refused)).isEqualTo("429 org.springframework.resilience."
                + "InvocationRejectedException: Concurrency limit reached: 1 (WAIT_TIMEOUT) - not allowed to enter "
                + "dev.bulwark.spring.spring7.ResilientApp$Throttled.brief [target throttled]");
        app.holds().release("brief", 1);
        assertThat(RunningResilientApp.seen(held.join())).isEqualTo("200 brief done");
    }

    @Test
    void theSingletonsBulkheadsAreInTheActuatorViewAndThePrototypesAreNot() {
        String view = app.seen("/actuator/bulwark");

        assertThat(view).startsWith("200 ").contains("\"name\":\"throttled.block\",\"maxConcurrency\":2,\"maxQueue\":1")
                .contains("\"name\":\"throttled.reject\",\"maxConcurrency\":2,\"maxQueue\":0")
                .contains("\"name\":\"throttled.brief\",\"maxConcurrency\":1,\"maxQueue\":2147483647,"
                        + "\"maxWaitMillis\":50")
                .contains("\"name\":\"sharedThrottle\",\"maxConcurrency\":1,\"maxQueue\":0")
                .doesNotContain("throttled.none").doesNotContain("throttled.unbounded").doesNotContain("perInstance");
    }
}
