package dev.bulwark.spring.spring7;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;

/**
 * The same annotated application, once served by Spring's own {@code @ConcurrencyLimit} and once by Bulwark's
 * ({@code bulwark.spring-annotations.enabled=true}): over real HTTP, callers see the same answers, the same refusals
 * (Spring's {@code InvocationRejectedException}, its message and target) and the same limits. Each scenario also
 * checks what it expects, so that both cannot be wrong the same way.
 */
class ConcurrencyLimitComparisonTest {

    private static RunningResilientApp spring;
    private static RunningResilientApp bulwark;

    @BeforeAll
    static void start() {
        spring = RunningResilientApp.start();
        bulwark = RunningResilientApp.start("bulwark.spring-annotations.enabled=true");
    }

    @AfterAll
    static void stop() throws Exception {
        SideBySide.close(spring, bulwark);
    }

    private static List<String> both(Function<RunningResilientApp, List<String>> scenario) {
        return SideBySide.both(spring, bulwark, scenario);
    }

    @Test
    void theProxiesAreOfOneKindClassBasedUnderBoot() {
        assertThat(both(app -> List.of("class-based: " + AopUtils.isCglibProxy(
                app.context().getBean(ResilientApp.Throttled.class))))).containsExactly("class-based: true");
    }

    @Test
    void blockWaitsForASlotAndNeverExceedsTheLimit() {
        assertThat(both(app -> {
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                calls.add(app.get("/block"));
            }
            // Two inside, three parked in the throttle before the method's body.
            await().atMost(Duration.ofSeconds(10)).until(() -> app.holds().inside("block") == 2
                    && RunningResilientApp.waitingIn("block") == 3);
            app.holds().release("block", 5);
            List<String> seen = new ArrayList<>();
            calls.forEach(call -> seen.add(RunningResilientApp.seen(call.join())));
            seen.add("most inside at once: " + app.holds().most("block"));
            return seen;
        })).containsExactly("200 block done", "200 block done", "200 block done", "200 block done",
                "200 block done", "most inside at once: 2");
    }

    @Test
    void rejectRefusesAtTheLimitWithSpringsException() {
        assertThat(both(app -> {
            List<CompletableFuture<HttpResponse<String>>> held = List.of(app.get("/reject?hold=true"),
                    app.get("/reject?hold=true"));
            await().atMost(Duration.ofSeconds(10)).until(() -> app.holds().inside("reject") == 2);
            List<String> seen = new ArrayList<>();
            seen.add(app.seen("/reject?hold=false"));
            app.holds().release("reject", 2);
            held.forEach(call -> seen.add(RunningResilientApp.seen(call.join())));
            seen.add(app.seen("/reject?hold=false"));
            return seen;
        })).containsExactly("429 org.springframework.resilience.InvocationRejectedException: Concurrency limit "
                + "reached: 2 - not allowed to enter dev.bulwark.spring.spring7.ResilientApp$Throttled.reject "
                + "[target throttled]", "200 reject done", "200 reject done", "200 reject done");
    }

    @Test
    void limitZeroRefusesEveryCallAndMinusOneNone() {
        assertThat(both(app -> {
            List<String> seen = new ArrayList<>();
            seen.add(app.seen("/none"));
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(app.get("/unbounded"));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> app.holds().inside("unbounded") == 4);
            app.holds().release("unbounded", 4);
            calls.forEach(call -> seen.add(RunningResilientApp.seen(call.join())));
            return seen;
        })).containsExactly("429 org.springframework.resilience.InvocationRejectedException: Concurrency limit set to"
                + " NO_CONCURRENCY - not allowed to enter dev.bulwark.spring.spring7.ResilientApp$Throttled.none "
                + "[target throttled]", "200 unbounded done", "200 unbounded done", "200 unbounded done",
                "200 unbounded done");
    }

    @Test
    void theMethodsOwnExceptionPassesUntouched() {
        assertThat(both(app -> List.of(app.seen("/fails"), app.seen("/fails")))).containsExactly(
                "429 java.util.concurrent.RejectedExecutionException: the method's own [target none]",
                "429 java.util.concurrent.RejectedExecutionException: the method's own [target none]");
    }

    @Test
    void anAnnotationOnTheClassIsOneLimitForAllItsMethods() {
        assertThat(both(app -> {
            CompletableFuture<HttpResponse<String>> held = app.get("/shared/first?hold=true");
            await().atMost(Duration.ofSeconds(10)).until(() -> app.holds().inside("shared") == 1);
            List<String> seen = new ArrayList<>();
            seen.add(app.seen("/shared/second"));
            seen.add(app.seen("/shared/first?hold=false"));
            app.holds().release("shared", 1);
            seen.add(RunningResilientApp.seen(held.join()));
            seen.add(app.seen("/shared/second"));
            return seen;
        })).containsExactly("429 org.springframework.resilience.InvocationRejectedException: Concurrency limit "
                + "reached: 1 - not allowed to enter dev.bulwark.spring.spring7.ResilientApp$SharedThrottle "
                + "[target sharedThrottle]", "429 org.springframework.resilience.InvocationRejectedException: "
                + "Concurrency limit reached: 1 - not allowed to enter "
                + "dev.bulwark.spring.spring7.ResilientApp$SharedThrottle [target sharedThrottle]",
                "200 first done", "200 second done");
    }

    @Test
    void eachInstanceOfAPrototypeBeanHasItsOwnLimit() {
        assertThat(both(app -> {
            CompletableFuture<HttpResponse<String>> held = app.get("/instance/0?hold=true");
            await().atMost(Duration.ofSeconds(10)).until(() -> app.holds().inside("instance") == 1);
            List<String> seen = new ArrayList<>();
            seen.add(app.seen("/instance/1?hold=false"));
            seen.add(app.seen("/instance/0?hold=false"));
            app.holds().release("instance", 1);
            seen.add(RunningResilientApp.seen(held.join()));
            return seen;
        })).containsExactly("200 instance done", "429 org.springframework.resilience.InvocationRejectedException: "
                + "Concurrency limit reached: 1 - not allowed to enter "
                + "dev.bulwark.spring.spring7.ResilientApp$PerInstance.call [target instance 0]",
                "200 instance done");
    }
}
