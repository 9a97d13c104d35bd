package dev.bulwark.benchmarks.subjects;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Bulwark's bulkhead inside a pipeline: a retry of rejections around it, and optionally a timeout in between. The
 * difference from {@link BulwarkSubject} is what composing costs on a call that succeeds at once.
 */
final class BulwarkPipelineSubject implements Subject {

    private final String name;
    private final Bulkhead bulkhead;
    private final Policy pipeline;

    BulwarkPipelineSubject(String name, SubjectSpec spec, boolean withTimeout) {
        this.name = name;
        Bulkhead.Builder builder = Bulkhead.builder().name(name).maxConcurrency(spec.limit()).maxQueue(spec.queue());
        if (spec.waits()) {
            builder.maxWait(spec.maxWait());
        }
        this.bulkhead = builder.build();
        Retry retry = Retry.builder().handle(BulkheadRejectedException.class).maxRetries(3).build();
        this.pipeline = withTimeout ? Pipeline.of(retry, Timeout.of(Duration.ofSeconds(30)), bulkhead)
                : Pipeline.of(retry, bulkhead);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Object call(Work work) {
        try {
            return pipeline.call(work);
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    @Override
    public CompletableFuture<Object> callAsync(AsyncWork work) {
        return pipeline.callAsync(work);
    }

    @Override
    public Slot occupy() {
        Permit permit = bulkhead.tryAcquire()
                .orElseThrow(() -> new IllegalStateException(name + ": no free slot to occupy"));
        return permit::close;
    }

    @Override
    public boolean isRefusal(Object result) {
        return result instanceof BulkheadRejectedException;
    }

    @Override
    public boolean isRefusal(Throwable failure) {
        return failure instanceof BulkheadRejectedException;
    }
}
