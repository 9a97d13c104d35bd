package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_CALLS;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTING;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTION;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_MAX_CONCURRENCY;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_MAX_QUEUE;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_QUEUED;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_WAIT;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Records one bulkhead's events in its meters. The gauges read the bulkhead through a weak reference (Micrometer's
 * default for {@link Gauge#builder(String, Object, java.util.function.ToDoubleFunction)}), and nothing here refers
 * to the bulkhead, so a bound bulkhead that its owner drops can be collected. Thread-safe: meters are.
 */
final class BulkheadMeters extends AttachedListener implements BulkheadListener {

    static final String ADMITTED = "admitted";
    static final String CANCELLED = "cancelled";

    private final Counter admitted;
    private final Counter cancelled;
    /** Indexed by {@link Rejection.Reason#ordinal()}. */
    private final Counter[] rejected;
    private final Timer waitAdmitted;
    private final Timer waitTimedOut;
    private final Timer waitCancelled;
    private final Timer execution;

    private BulkheadMeters(MeterGroup group, Tags tags) {
        MeterRegistry registry = group.registry();
        admitted = group.add(calls(tags, ADMITTED).register(registry));
        cancelled = group.add(calls(tags, CANCELLED).register(registry));
        Rejection.Reason[] reasons = Rejection.Reason.values();
        rejected = new Counter[reasons.length];
        for (Rejection.Reason reason : reasons) {
            rejected[reason.ordinal()] = group.add(calls(tags, rejectedOutcome(reason)).register(registry));
        }
        waitAdmitted = group.add(wait(tags, ADMITTED).register(registry));
        waitTimedOut = group.add(wait(tags, rejectedOutcome(Rejection.Reason.WAIT_TIMEOUT)).register(registry));
        waitCancelled = group.add(wait(tags, CANCELLED).register(registry));
        execution = group.add(Timer.builder(BULKHEAD_EXECUTION).tags(tags)
                .description("How long admitted calls held their slot of the bulkhead").register(registry));
    }

    /**
     * Registers the meters of {@code bulkhead} in {@code group} and returns the listener that feeds them (not yet
     * attached).
     */
    static BulkheadMeters register(MeterGroup group, Tags tags, Bulkhead bulkhead) {
        MeterRegistry registry = group.registry();
        // Method references, not lambdas over the bulkhead: the gauge must reach the bulkhead only weakly.
        group.add(Gauge.builder(BULKHEAD_EXECUTING, bulkhead, Bulkhead::executingCount).tags(tags)
                .description("Calls holding a slot of the bulkhead now").register(registry));
        group.add(Gauge.builder(BULKHEAD_QUEUED, bulkhead, Bulkhead::queuedCount).tags(tags)
                .description("Calls waiting for a slot of the bulkhead now").register(registry));
        group.add(Gauge.builder(BULKHEAD_MAX_CONCURRENCY, bulkhead, Bulkhead::maxConcurrency).tags(tags)
                .description("The bulkhead's concurrency limit in force").register(registry));
        group.add(Gauge.builder(BULKHEAD_MAX_QUEUE, bulkhead, Bulkhead::maxQueue).tags(tags)
                .description("The bulkhead's queue limit in force").register(registry));
        return new BulkheadMeters(group, tags);
    }

    static String rejectedOutcome(Rejection.Reason reason) {
        return "rejected." + reason.name().toLowerCase(Locale.ROOT);
    }

    private static Counter.Builder calls(Tags tags, String outcome) {
        return Counter.builder(BULKHEAD_CALLS).tags(tags).tag(TAG_OUTCOME, outcome)
                .description("Calls that reached the bulkhead, by how they ended there");
    }

    private static Timer.Builder wait(Tags tags, String outcome) {
        return Timer.builder(BULKHEAD_WAIT).tags(tags).tag(TAG_OUTCOME, outcome)
                .description("How long calls waited for a slot of the bulkhead, by how the wait ended");
    }

    @Override
    public void admitted(long waitedNanos) {
        admitted.increment();
        waitAdmitted.record(waitedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void rejected(Rejection rejection) {
        rejected[rejection.reason().ordinal()].increment();
        if (rejection.reason() == Rejection.Reason.WAIT_TIMEOUT) {
            waitTimedOut.record(rejection.waited());
        }
    }

    @Override
    public void cancelled(long waitedNanos) {
        cancelled.increment();
        waitCancelled.record(waitedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void released(long executionNanos) {
        execution.record(executionNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return "BulwarkMetrics bulkhead listener";
    }
}
