package dev.bulwark.spring.spring7;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Scope;
import org.springframework.context.event.EventListener;
import org.springframework.core.retry.RetryException;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryEvent;
import org.springframework.resilience.retry.MethodRetryPredicate;
import reactor.core.publisher.Mono;

/**
 * One application with Spring Framework 7's {@code @Retryable} on its services, served by Spring
 * ({@code @EnableResilientMethods}) or, with {@code bulwark.spring-annotations.enabled=true}, by Bulwark. Delays are a
 * few milliseconds; each attempt's start is recorded so that the tests measure the delays between attempts.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableResilientMethods
public class RetryApp {

    /** The properties every run starts from. */
    static final List<String> BASE = List.of("spring.main.web-application-type=none", "spring.main.banner-mode=off",
            "logging.level.root=WARN", "test.retries=2", "test.delay=2ms");

    @Bean
    Recorder recorder() {
        return new Recorder();
    }

    @Bean
    Retrying retrying(Recorder recorder) {
        return new Retrying(recorder);
    }

    @Bean
    ClassWide classWide(Recorder recorder) {
        return new ClassWide(recorder);
    }

    @Bean
    @Scope("prototype")
    PerInstance perInstance(Recorder recorder) {
        return new PerInstance(recorder);
    }

    /** The attempts (their start times) and Spring's MethodRetryEvents. */
    public static class Recorder {
        final Map<String, List<Long>> attempts = new ConcurrentHashMap<>();
        final List<String> events = new CopyOnWriteArrayList<>();

        int attempt(String key) {
            List<Long> starts = attempts.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
            starts.add(System.nanoTime());
            return starts.size();
        }

        int count(String key) {
            return attempts.getOrDefault(key, List.of()).size();
        }

        void reset() {
            attempts.clear();
            events.clear();
        }

        @EventListener
        void on(MethodRetryEvent event) {
            Throwable failure = event.getFailure();
            String seen = event.getMethod().getName() + (event.isRetryAborted() ? " aborted " : " failed ")
                    + failure.getClass().getSimpleName() + ": " + failure.getMessage();
            if (failure instanceof RetryException) {
                seen += " (cause " + failure.getCause().getMessage() + ", suppressed "
                        + failure.getSuppressed().length + ")";
            }
            events.add(seen);
        }
    }

    /** Retries only failures whose message says they are transient, and only of {@code predicate()}. */
    public static class OnlyTransient implements MethodRetryPredicate {
        private final Recorder recorder;

        /** Made by the bean factory, as Spring makes it: the recorder is autowired. */
        public OnlyTransient(Recorder recorder) {
            this.recorder = recorder;
        }

        @Override
        public boolean shouldRetry(Method method, Throwable throwable) {
            recorder.events.add("predicate asked about " + throwable.getMessage());
            return method.getName().equals("predicate") && throwable.getMessage().startsWith("transient");
        }
    }

    /** Methods with a retry of their own each. */
    public static class Retrying {
        private final Recorder recorder;

        Retrying(Recorder recorder) {
            this.recorder = recorder;
        }

        /** The default filter (every failure), 2 retries from a placeholder; succeeds on attempt {@code okAt}. */
        @Retryable(maxRetriesString = "${test.retries}", delayString = "${test.delay}")
        public String flaky(int okAt) throws IOException {
            int attempt = recorder.attempt("flaky");
            if (attempt < okAt) {
                throw new IOException("flaky attempt " + attempt);
            }
            return "flaky ok at " + attempt;
        }

        /** An Error is retried too, as Spring retries every Throwable by default. */
        @Retryable(maxRetries = 1, delay = 1)
        public String error() {
            throw new AssertionError("error attempt " + recorder.attempt("error"));
        }

        /** {@code value}: IOException, here or as a cause. */
        @Retryable(value = IOException.class, maxRetries = 3, delay = 1)
        public String includes(boolean wrapped) throws IOException {
            int attempt = recorder.attempt("includes");
            if (attempt == 1 && wrapped) {
                throw new IllegalStateException("wrapped", new IOException("inner"));
            }
            if (attempt == 1) {
                throw new IOException("direct");
            }
            throw new IllegalArgumentException("not included " + attempt);
        }

        /** {@code excludes} wins over {@code includes}, along causes too. */
        @Retryable(includes = RuntimeException.class, excludes = IllegalArgumentException.class, maxRetries = 3,
                delay = 1)
        public String excludes() {
            int attempt = recorder.attempt("excludes");
            if (attempt == 1) {
                throw new IllegalStateException("included " + attempt);
            }
            throw new IllegalStateException("excluded cause " + attempt, new IllegalArgumentException("inner"));
        }

        /** The predicate, made as a bean. */
        @Retryable(predicate = OnlyTransient.class, maxRetries = 3, delay = 1)
        public String predicate() {
            int attempt = recorder.attempt("predicate");
            throw new IllegalStateException((attempt == 1 ? "transient " : "permanent ") + attempt);
        }

        /** Exponential backoff with multiplier, maxDelay and jitter: delays 5, 10 then 15 (capped), jittered. */
        @Retryable(maxRetries = 3, delay = 5, multiplier = 2, maxDelay = 15, jitter = 2)
        public String backoff() {
            throw new IllegalStateException("backoff attempt " + recorder.attempt("backoff"));
        }

        /** Durations in a unit of their own (seconds, and 4ms in the string), a multiplier as a string. */
        @Retryable(maxRetries = 2, delayString = "4ms", multiplierString = "1.5", maxDelay = 1, timeUnit =
                java.util.concurrent.TimeUnit.SECONDS)
        public String units() {
            throw new IllegalStateException("units attempt " + recorder.attempt("units"));
        }

        /** A reactive return type: Spring's Reactor retry either way. */
        @Retryable(maxRetries = 2, delay = 1)
        public Mono<String> reactive() {
            return Mono.defer(() -> Mono.error(new IllegalStateException("reactive attempt "
                    + recorder.attempt("reactive"))));
        }

        /** A long delay, for an interrupt during it. */
        @Retryable(maxRetries = 1, delay = 60_000)
        public String interruptible() {
            throw new IllegalStateException("interruptible attempt " + recorder.attempt("interruptible"));
        }

        /** Both annotations: the throttle goes outside the retry, as Spring orders its own. */
        @ConcurrencyLimit(1)
        @Retryable(maxRetries = 1, delay = 1)
        public String both() {
            throw new IllegalStateException("both attempt " + recorder.attempt("both"));
        }

        /** A timeout: Spring's interceptor either way. */
        @Retryable(maxRetries = 2, delay = 1, timeout = 10_000)
        public String timeout() {
            throw new IllegalStateException("timeout attempt " + recorder.attempt("timeout"));
        }
    }

    /** One annotation on the class for all its methods; a method's own wins. */
    @Retryable(maxRetries = 1, delay = 1)
    public static class ClassWide {
        private final Recorder recorder;

        ClassWide(Recorder recorder) {
            this.recorder = recorder;
        }

        public String first() {
            throw new IllegalStateException("first attempt " + recorder.attempt("first"));
        }

        @Retryable(maxRetries = 3, delay = 1)
        public String own() {
            throw new IllegalStateException("own attempt " + recorder.attempt("own"));
        }
    }

    /** A prototype bean: its retries are not registered. */
    public static class PerInstance {
        private final Recorder recorder;
        private final AtomicInteger calls = new AtomicInteger();

        PerInstance(Recorder recorder) {
            this.recorder = recorder;
        }

        @Retryable(maxRetries = 1, delay = 1)
        public String call() {
            calls.incrementAndGet();
            throw new IllegalStateException("instance attempt " + recorder.attempt("instance"));
        }
    }
}
