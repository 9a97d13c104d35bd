package dev.bulwark.benchmarks.subjects;

import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Resilience4j's semaphore bulkhead ({@code resilience4j-bulkhead}), configured as its documentation shows:
 * {@code maxConcurrentCalls}, {@code maxWaitDuration} (0 unless the scenario queues), fair call handling (its
 * default), and stack traces on {@link BulkheadFullException} either kept (the default) or disabled with
 * {@code writableStackTraceEnabled(false)}, the setting its documentation suggests for high-load services. Calls
 * go through {@link Bulkhead#executeSupplier} and {@link Bulkhead#executeCompletionStage}.
 */
final class Resilience4jSubject implements Subject {

    private final String name;
    private final Bulkhead bulkhead;

    Resilience4jSubject(String name, SubjectSpec spec, boolean writableStackTraces) {
        this.name = name;
        BulkheadConfig config = BulkheadConfig.custom()
                .maxConcurrentCalls(spec.limit())
                .maxWaitDuration(spec.waits() ? spec.maxWait() : Duration.ZERO)
                .writableStackTraceEnabled(writableStackTraces)
                .build();
        this.bulkhead = Bulkhead.of(name, config);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Object call(Work work) {
        try {
            return bulkhead.executeSupplier(work);
        } catch (BulkheadFullException refused) {
            return refused;
        }
    }

    @Override
    public CompletableFuture<Object> callAsync(AsyncWork work) {
        return bulkhead.executeCompletionStage(work).toCompletableFuture();
    }

    @Override
    public Slot occupy() {
        if (!bulkhead.tryAcquirePermission()) {
            throw new IllegalStateException(name + ": no free permission to occupy");
        }
        return bulkhead::releasePermission;
    }

    @Override
    public boolean isRefusal(Object result) {
        return result instanceof BulkheadFullException;
    }

    @Override
    public boolean isRefusal(Throwable failure) {
        return failure instanceof BulkheadFullException;
    }
}
