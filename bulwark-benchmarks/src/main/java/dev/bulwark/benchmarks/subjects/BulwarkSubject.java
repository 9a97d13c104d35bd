package dev.bulwark.benchmarks.subjects;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import java.util.concurrent.CompletableFuture;

/**
 * Bulwark's in-process bulkhead, called through {@link Bulkhead#call} and {@link Bulkhead#callAsync}, optionally
 * with a listener that does nothing (to measure what registering a listener costs).
 */
final class BulwarkSubject implements Subject {

    private final String name;
    private final Bulkhead bulkhead;

    BulwarkSubject(String name, SubjectSpec spec, boolean withListener) {
        this.name = name;
        Bulkhead.Builder builder = Bulkhead.builder().name(name).maxConcurrency(spec.limit()).maxQueue(spec.queue());
        if (spec.waits()) {
            builder.maxWait(spec.maxWait());
        }
        if (withListener) {
            builder.listener(new IgnoringListener());
        }
        this.bulkhead = builder.build();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Object call(Work work) {
        try {
            return bulkhead.call(work);
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    @Override
    public CompletableFuture<Object> callAsync(AsyncWork work) {
        return bulkhead.callAsync(work);
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

    /** A listener that overrides every event and does nothing with it: the cost is the bulkhead's alone. */
    private static final class IgnoringListener implements BulkheadListener {
        @Override
        public void admitted(java.time.Duration waited) {
        }

        @Override
        public void rejected(dev.bulwark.Rejection rejection) {
        }

        @Override
        public void cancelled(java.time.Duration waited) {
        }

        @Override
        public void released(java.time.Duration executionTime) {
        }
    }
}
