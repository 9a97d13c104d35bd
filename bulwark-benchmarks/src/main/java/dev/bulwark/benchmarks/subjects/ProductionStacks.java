package dev.bulwark.benchmarks.subjects;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Pipeline;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import dev.bulwark.micrometer.BulwarkMetrics;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeExecutor;
import dev.failsafe.RetryPolicy;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedBulkheadMetrics;
import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The stacks users really run, for each library, built as its documentation shows: the bare bulkhead; the bulkhead
 * with its Micrometer metrics bound (Failsafe has no Micrometer module: its success and failure listeners stand in);
 * a retry around the bulkhead; and a retry, then a timeout, then the bulkhead. Every stack has a concurrency limit of
 * 10, no queue, a retry of up to 3 retries of refusals, and a 30-second timeout, so that the calls measured (which
 * succeed at once) never retry nor time out.
 *
 * <p>Meters go to a {@link SimpleMeterRegistry}, the same for every library. Resilience4j's time limiter only runs
 * futures, so its timeout stack hands each call to a one-thread executor and waits for it, as its documentation
 * shows for synchronous code; that thread hop is its real cost.
 */
public final class ProductionStacks {

    /** The stack kinds, in table order. */
    public enum Kind {
        /** The bulkhead alone. */
        BULKHEAD,
        /** The bulkhead with its metrics bound (Failsafe: with listeners). */
        METRICS,
        /** A retry around the bulkhead. */
        RETRY,
        /** A retry, a timeout, then the bulkhead. */
        RETRY_TIMEOUT
    }

    private static final int LIMIT = 10;
    private static final int MAX_RETRIES = 3;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private ProductionStacks() {
    }

    /**
     * Builds one stack. Each call builds its own policies and registry.
     *
     * @param library {@link Subjects#BULWARK}, {@link Subjects#RESILIENCE4J} or {@link Subjects#FAILSAFE}
     * @param kind the stack
     * @param exactTiming Bulwark only: bind its metrics with exact (unsampled) timers
     * @return a call through the stack; a refusal is returned, not thrown
     * @throws IllegalArgumentException for another library name
     */
    public static Stack create(String library, Kind kind, boolean exactTiming) {
        Objects.requireNonNull(kind, "kind");
        switch (Objects.requireNonNull(library, "library")) {
            case Subjects.BULWARK:
                return bulwark(kind, exactTiming);
            case Subjects.RESILIENCE4J:
                return resilience4j(kind);
            case Subjects.FAILSAFE:
                return failsafe(kind);
            default:
                throw new IllegalArgumentException("library must be one of " + Subjects.BULWARK + ", "
                        + Subjects.RESILIENCE4J + ", " + Subjects.FAILSAFE + " but was '" + library + "'");
        }
    }

    /** One call through a stack, and what to close afterwards. */
    public interface Stack extends AutoCloseable {

        /**
         * Calls {@code work} through the stack.
         *
         * @param work what to run
         * @return its result, or the refusal
         */
        Object call(Work work);

        /** Releases the stack's threads, if any. */
        @Override
        default void close() {
        }
    }

    private static Stack bulwark(Kind kind, boolean exactTiming) {
        dev.bulwark.Bulkhead bulkhead = dev.bulwark.Bulkhead.builder().name("bulwark").maxConcurrency(LIMIT)
                .maxQueue(0).build();
        Retry retry = Retry.builder().handle(BulkheadRejectedException.class).maxRetries(MAX_RETRIES).build();
        dev.bulwark.Policy policy;
        switch (kind) {
            case BULKHEAD:
                policy = bulkhead;
                break;
            case METRICS:
                MeterRegistry registry = new SimpleMeterRegistry();
                BulwarkMetrics metrics = exactTiming ? BulwarkMetrics.of(registry)
                        : BulwarkMetrics.of(registry);
                metrics.bind(bulkhead);
                policy = bulkhead;
                break;
            case RETRY:
                policy = Pipeline.of(retry, bulkhead);
                break;
            default:
                policy = Pipeline.of(retry, Timeout.of(TIMEOUT), bulkhead);
        }
        dev.bulwark.Policy calls = policy;
        return work -> {
            try {
                return calls.call(work);
            } catch (BulkheadRejectedException refused) {
                return refused;
            }
        };
    }

    private static Stack resilience4j(Kind kind) {
        BulkheadRegistry bulkheads = BulkheadRegistry.of(BulkheadConfig.custom().maxConcurrentCalls(LIMIT)
                .maxWaitDuration(Duration.ZERO).build());
        Bulkhead bulkhead = bulkheads.bulkhead("resilience4j");
        io.github.resilience4j.retry.Retry retry = io.github.resilience4j.retry.Retry.of("resilience4j",
                io.github.resilience4j.retry.RetryConfig.custom().maxAttempts(MAX_RETRIES + 1)
                        .retryExceptions(BulkheadFullException.class).build());
        switch (kind) {
            case BULKHEAD:
                return work -> refusalOf(() -> bulkhead.executeSupplier(work));
            case METRICS:
                TaggedBulkheadMetrics.ofBulkheadRegistry(bulkheads).bindTo(new SimpleMeterRegistry());
                return work -> refusalOf(() -> bulkhead.executeSupplier(work));
            case RETRY:
                return work -> refusalOf(() -> retry.executeSupplier(() -> bulkhead.executeSupplier(work)));
            default:
                TimeLimiter limiter = TimeLimiter.of(TimeLimiterConfig.custom().timeoutDuration(TIMEOUT)
                        .cancelRunningFuture(true).build());
                ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "resilience4j-time-limiter");
                    thread.setDaemon(true);
                    return thread;
                });
                return new Stack() {
                    @Override
                    public Object call(Work work) {
                        return refusalOf(() -> retry.executeSupplier(() -> {
                            try {
                                return limiter.executeFutureSupplier(
                                        () -> executor.submit(() -> bulkhead.executeSupplier(work)));
                            } catch (RuntimeException failure) {
                                throw failure;
                            } catch (Exception failure) {
                                throw new IllegalStateException(failure);
                            }
                        }));
                    }

                    @Override
                    public void close() {
                        executor.shutdownNow();
                    }
                };
        }
    }

    private static Object refusalOf(Supplier<Object> call) {
        try {
            return call.get();
        } catch (BulkheadFullException refused) {
            return refused;
        }
    }

    private static Stack failsafe(Kind kind) {
        dev.failsafe.Bulkhead<Object> bulkhead;
        if (kind == Kind.METRICS) {
            bulkhead = dev.failsafe.Bulkhead.builder(LIMIT).withMaxWaitTime(Duration.ZERO)
                    .onSuccess(event -> {
                    }).onFailure(event -> {
                    }).build();
        } else {
            bulkhead = dev.failsafe.Bulkhead.builder(LIMIT).withMaxWaitTime(Duration.ZERO).build();
        }
        RetryPolicy<Object> retry = RetryPolicy.builder().handle(dev.failsafe.BulkheadFullException.class)
                .withMaxRetries(MAX_RETRIES).build();
        FailsafeExecutor<Object> executor;
        switch (kind) {
            case BULKHEAD:
            case METRICS:
                executor = Failsafe.with(bulkhead);
                break;
            case RETRY:
                executor = Failsafe.with(retry, bulkhead);
                break;
            default:
                executor = Failsafe.with(retry, dev.failsafe.Timeout.of(TIMEOUT), bulkhead);
        }
        return work -> {
            try {
                return executor.get(work);
            } catch (dev.failsafe.BulkheadFullException refused) {
                return refused;
            }
        };
    }
}
