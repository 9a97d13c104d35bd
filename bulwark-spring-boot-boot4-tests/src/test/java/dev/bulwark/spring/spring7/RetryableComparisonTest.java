package dev.bulwark.spring.spring7;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.spring.BulwarkPolicies;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.resilience.annotation.RetryAnnotationBeanPostProcessor;

/**
 * The same annotated application, once served by Spring's own {@code @Retryable} and once by Bulwark's
 * ({@code bulwark.spring-annotations.enabled=true}): callers see the same number of attempts, the same exception
 * (the same instance as the last attempt threw), the same {@code MethodRetryEvent}s, and delays within Spring's
 * bounds. Each scenario also checks what it expects, so that both cannot be wrong the same way.
 */
class RetryableComparisonTest {

    private static ConfigurableApplicationContext spring;
    private static ConfigurableApplicationContext bulwark;

    @BeforeAll
    static void start() {
        spring = launch();
        bulwark = launch("bulwark.spring-annotations.enabled=true");
    }

    private static ConfigurableApplicationContext launch(String... properties) {
        return SideBySide.launch(RetryApp.class, RetryApp.BASE, properties);
    }

    @AfterAll
    static void stop() throws Exception {
        SideBySide.close(spring, bulwark);
    }

    private static List<String> both(Function<ConfigurableApplicationContext, List<String>> scenario) {
        return SideBySide.both(spring, bulwark, scenario);
    }

    /** Calls once, from a fresh record: the outcome, the attempts of {@code key}, and the events. */
    private static List<String> call(ConfigurableApplicationContext app, String key, Callable<?> call) {
        RetryApp.Recorder recorder = app.getBean(RetryApp.Recorder.class);
        recorder.reset();
        List<String> seen = new ArrayList<>();
        try {
            seen.add("returned " + call.call());
        } catch (Throwable thrown) {
            seen.add("threw " + thrown.getClass().getName() + ": " + thrown.getMessage()
                    + " (suppressed " + thrown.getSuppressed().length + ")");
        }
        seen.add(key + " attempts: " + recorder.count(key));
        seen.addAll(recorder.events);
        return seen;
    }

    private static RetryApp.Retrying retrying(ConfigurableApplicationContext app) {
        return app.getBean(RetryApp.Retrying.class);
    }

    @Test
    void springsRetryInterceptorIsRemovedAndBulwarksAppliesOnce() {
        assertThat(spring.getBeanNamesForType(RetryAnnotationBeanPostProcessor.class)).hasSize(1);
        assertThat(bulwark.getBeanNamesForType(RetryAnnotationBeanPostProcessor.class)).isEmpty();
        Advised proxy = (Advised) bulwark.getBean(RetryApp.Retrying.class);
        assertThat(Arrays.stream(proxy.getAdvisors()).map(advisor -> advisor.getAdvice().getClass().getName()))
                .filteredOn(name -> name.contains("Retry"))
                .containsExactly("dev.bulwark.spring.internal.RetryableInterceptor");
        // A method with both annotations: the throttle outside the retry, in either implementation.
        assertThat(both(app -> Arrays.stream(((Advised) app.getBean(RetryApp.Retrying.class)).getAdvisors())
                .map(advisor -> advisor.getAdvice().getClass().getName())
                .map(name -> name.contains("ConcurrencyLimit") ? "limit" : name.contains("Retry") ? "retry" : name)
                .toList())).containsExactly("limit", "retry");
        assertThat(both(app -> call(app, "both", () -> retrying(app).both()))).startsWith(
                "threw java.lang.IllegalStateException: both attempt 2 (suppressed 0)", "both attempts: 2");
    }

    @Test
    void anInterruptDuringADelayEndsWithTheLastFailureAndTheInterruptKept() {
        assertThat(both(app -> {
            RetryApp.Recorder recorder = app.getBean(RetryApp.Recorder.class);
            recorder.reset();
            List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread caller = new Thread(() -> {
                try {
                    retrying(app).interruptible();
                } catch (Throwable thrown) {
                    seen.add("threw " + thrown.getMessage() + ", interrupted "
                            + Thread.currentThread().isInterrupted());
                }
            });
            caller.start();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
                    recorder.count("interruptible") == 1 && caller.getState() == Thread.State.TIMED_WAITING);
            caller.interrupt();
            try {
                caller.join(10_000);
            } catch (InterruptedException unexpected) {
                throw new AssertionError(unexpected);
            }
            seen.add("interruptible attempts: " + recorder.count("interruptible"));
            seen.addAll(recorder.events);
            return seen;
        })).containsExactly("threw interruptible attempt 1, interrupted true", "interruptible attempts: 1",
                "interruptible failed IllegalStateException: interruptible attempt 1",
                "interruptible aborted RetryException: Interrupted during back-off for retryable operation "
                        + "'dev.bulwark.spring.spring7.RetryApp$Retrying.interruptible'; aborting execution "
                        + "(cause interruptible attempt 1, suppressed 0)");
    }

    @Test
    void maxRetriesFromAPlaceholderAndTheLastFailureRethrown() {
        assertThat(both(app -> call(app, "flaky", () -> retrying(app).flaky(99)))).containsExactly(
                "threw java.io.IOException: flaky attempt 3 (suppressed 0)", "flaky attempts: 3",
                "flaky failed IOException: flaky attempt 1", "flaky failed IOException: flaky attempt 2",
                "flaky failed IOException: flaky attempt 3",
                "flaky aborted RetryException: Retry policy for operation "
                        + "'dev.bulwark.spring.spring7.RetryApp$Retrying.flaky' exhausted; aborting execution "
                        + "(cause flaky attempt 3, suppressed 2)");
        assertThat(both(app -> call(app, "flaky", () -> retrying(app).flaky(2)))).containsExactly(
                "returned flaky ok at 2", "flaky attempts: 2", "flaky failed IOException: flaky attempt 1");
    }

    @Test
    void anErrorIsRetriedByDefault() {
        assertThat(both(app -> call(app, "error", () -> retrying(app).error()))).startsWith(
                "threw java.lang.AssertionError: error attempt 2 (suppressed 0)", "error attempts: 2");
    }

    @Test
    void includesMatchTheFailureOrACause() {
        for (boolean wrapped : new boolean[] {false, true}) {
            assertThat(both(app -> call(app, "includes", () -> retrying(app).includes(wrapped)))).startsWith(
                    "threw java.lang.IllegalArgumentException: not included 2 (suppressed 0)", "includes attempts: 2");
        }
    }

    @Test
    void excludesWinAlongCauses() {
        assertThat(both(app -> call(app, "excludes", () -> retrying(app).excludes()))).startsWith(
                "threw java.lang.IllegalStateException: excluded cause 2 (suppressed 0)", "excludes attempts: 2");
    }

    @Test
    void thePredicateIsABeanAskedWithTheMethod() {
        assertThat(both(app -> call(app, "predicate", () -> retrying(app).predicate()))).containsExactly(
                "threw java.lang.IllegalStateException: permanent 2 (suppressed 0)", "predicate attempts: 2",
                "predicate failed IllegalStateException: transient 1", "predicate asked about transient 1",
                "predicate failed IllegalStateException: permanent 2", "predicate asked about permanent 2",
                "predicate aborted RetryException: Retry policy for operation "
                        + "'dev.bulwark.spring.spring7.RetryApp$Retrying.predicate' exhausted; aborting execution "
                        + "(cause permanent 2, suppressed 1)");
    }

    @Test
    void anAnnotationOnTheClassServesItsMethodsAndAMethodsOwnWins() {
        assertThat(both(app -> call(app, "first", () -> app.getBean(RetryApp.ClassWide.class).first())))
                .startsWith("threw java.lang.IllegalStateException: first attempt 2 (suppressed 0)",
                        "first attempts: 2");
        assertThat(both(app -> call(app, "own", () -> app.getBean(RetryApp.ClassWide.class).own())))
                .startsWith("threw java.lang.IllegalStateException: own attempt 4 (suppressed 0)", "own attempts: 4");
    }

    @Test
    void reactiveReturnTypesAndTimeoutsStaySpringsAndBehaveAlike() {
        assertThat(both(app -> call(app, "reactive", () -> retrying(app).reactive().block()))).startsWith(
                "threw reactor.core.Exceptions$RetryExhaustedException: Retries exhausted: 2/2 (suppressed 1)",
                "reactive attempts: 3", "reactive failed IllegalStateException: reactive attempt 1",
                "reactive failed IllegalStateException: reactive attempt 2",
                "reactive failed IllegalStateException: reactive attempt 3",
                "reactive aborted RetryExhaustedException: Retries exhausted: 2/2");
        assertThat(both(app -> call(app, "timeout", () -> retrying(app).timeout()))).startsWith(
                "threw java.lang.IllegalStateException: timeout attempt 3 (suppressed 0)", "timeout attempts: 3");
    }

    @Test
    void theDelaysStayWithinSpringsBounds() {
        // delay 5 ms, multiplier 2, maxDelay 15 ms, jitter 2 ms: Spring's intervals are 5, 10, 15 (capped), each
        // jittered by 2 ms times the interval's multiple of the first delay, never below 5 nor above 15:
        // [5, 7], [6, 14], [9, 15]. The measured gaps between attempts are at least the lower bounds.
        both(app -> {
            call(app, "backoff", () -> retrying(app).backoff());
            List<Long> gaps = gaps(app, "backoff");
            assertThat(gaps).hasSize(3);
            assertThat(gaps.get(0)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
            assertThat(gaps.get(1)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(6));
            assertThat(gaps.get(2)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(9));
            // Far below Spring's default delay of 1 s: the annotation's backoff is the one applied.
            assertThat(gaps).allMatch(gap -> gap < TimeUnit.MILLISECONDS.toNanos(500));
            return List.of();
        });
        // A string with a unit of its own (4ms, under timeUnit SECONDS) and a multiplier: 4, then 6 ms.
        both(app -> {
            call(app, "units", () -> retrying(app).units());
            List<Long> gaps = gaps(app, "units");
            assertThat(gaps).hasSize(2);
            assertThat(gaps.get(0)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(4));
            assertThat(gaps.get(1)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(6));
            assertThat(gaps).allMatch(gap -> gap < TimeUnit.MILLISECONDS.toNanos(500));
            return List.of();
        });
    }

    private static List<Long> gaps(ConfigurableApplicationContext app, String key) {
        List<Long> starts = app.getBean(RetryApp.Recorder.class).attempts.get(key);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < starts.size(); i++) {
            gaps.add(starts.get(i) - starts.get(i - 1));
        }
        return gaps;
    }

    @Test
    void theSingletonBeansRetriesAreRegisteredByNameThePrototypesNot() {
        BulwarkPolicies policies = bulwark.getBean(BulwarkPolicies.class);
        assertThat(policies.retries()).extracting(dev.bulwark.Retry::name).contains("retrying.flaky",
                "retrying.backoff", "classWide", "classWide.own").noneMatch(name -> name.startsWith("perInstance"));
        assertThat(policies.retries()).filteredOn(retry -> retry.name().equals("retrying.backoff"))
                .singleElement().hasToString("Retry[retrying.backoff: maxRetries=3, backoff=PT0.005S..PT0.015S, "
                        + "jitter=PT0.002S, retryClosedBulkheads]");
        ObjectProvider<RetryApp.PerInstance> instances = bulwark.getBeanProvider(RetryApp.PerInstance.class);
        assertThat(both(app -> call(app, "instance", () -> app.getBean(RetryApp.PerInstance.class).call())))
                .startsWith("threw java.lang.IllegalStateException: instance attempt 2 (suppressed 0)",
                        "instance attempts: 2");
        assertThat(instances.getObject()).isNotSameAs(instances.getObject());
    }
}
