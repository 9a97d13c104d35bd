package dev.bulwark.benchmarks.subjects;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Bulwark's in-process bulkhead, called either directly through {@link Bulkhead#call} and
 * {@link Bulkhead#callAsync} (optionally with a listener that does nothing, to measure what registering a listener
 * costs) or through a pipeline around it (to measure what composing costs on a call that succeeds at once).
 */
final class BulwarkSubject implements Subject {

    private final String name;
    /** The bulkhead itself, which {@link #occupy()} fills. */
    private final Bulkhead bulkhead;
    /** What calls go through: the bulkhead, or a pipeline ending in it. */
    private final Policy calls;

    private BulwarkSubject(String name, Bulkhead bulkhead, Policy calls) {
        this.name = name;
        this.bulkhead = bulkhead;
        this.calls = calls;
    }

    /** Which listener the bulkhead gets. */
    enum Listening {
        /** None. */
        NONE,
        /** One that overrides every event and ignores it: every call is timed for it. */
        EVERY_EVENT,
        /** One that overrides the outcomes only (not {@code released}): no call needs a clock reading. */
        OUTCOMES
    }

    /**
     * The bulkhead alone.
     *
     * @param listening which listener to register, doing nothing
     */
    static BulwarkSubject direct(String name, SubjectSpec spec, Listening listening) {
        Bulkhead.Builder builder = builder(name, spec);
        if (listening == Listening.EVERY_EVENT) {
            builder.listener(new IgnoringListener());
        } else if (listening == Listening.OUTCOMES) {
            builder.listener(new OutcomeListener());
        }
        Bulkhead bulkhead = builder.build();
        return new BulwarkSubject(name, bulkhead, bulkhead);
    }

    /**
     * The bulkhead inside a pipeline: a retry of rejections around it, and optionally a timeout in between.
     *
     * @param withTimeout whether to put a 30-second timeout between the retry and the bulkhead
     */
    static BulwarkSubject inPipeline(String name, SubjectSpec spec, boolean withTimeout) {
        Bulkhead bulkhead = builder(name, spec).build();
        Retry retry = Retry.builder().handle(BulkheadRejectedException.class).maxRetries(3).build();
        Policy pipeline = withTimeout ? Pipeline.of(retry, Timeout.of(Duration.ofSeconds(30)), bulkhead)
                : Pipeline.of(retry, bulkhead);
        return new BulwarkSubject(name, bulkhead, pipeline);
    }

    /** The bulkhead configuration every Bulwark subject uses for {@code spec}. */
    static Bulkhead.Builder builder(String name, SubjectSpec spec) {
        Bulkhead.Builder builder = Bulkhead.builder().name(name).maxConcurrency(spec.limit()).maxQueue(spec.queue());
        if (spec.waits()) {
            builder.maxWait(spec.maxWait());
        }
        return builder;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Object call(Work work) {
        try {
            return calls.call(work);
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    @Override
    public CompletableFuture<Object> callAsync(AsyncWork work) {
        return calls.callAsync(work);
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
        public void admitted(long waitedNanos) {
        }

        @Override
        public void rejected(dev.bulwark.Rejection rejection) {
        }

        @Override
        public void cancelled(long waitedNanos) {
        }

        @Override
        public void released(long executionNanos) {
        }
    }

    /** A listener of outcomes that does nothing with them; it does not ask for execution times. */
    private static final class OutcomeListener implements BulkheadListener {
        @Override
        public void admitted(long waitedNanos) {
        }

        @Override
        public void rejected(dev.bulwark.Rejection rejection) {
        }

        @Override
        public void cancelled(long waitedNanos) {
        }
    }
}
