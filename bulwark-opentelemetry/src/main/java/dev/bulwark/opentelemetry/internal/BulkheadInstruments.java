package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_ACTIVE_LEASES;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CONCURRENCY_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_QUEUED_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_QUEUE_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_REJECTION_REASON;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import java.lang.ref.WeakReference;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToIntFunction;

/**
 * Records one bulkhead's events. Design: the call counts are {@link LongAdder}s (striped, so concurrent callers do
 * not contend on one cache line) read by an asynchronous counter at collection; the two histograms are recorded
 * with attribute sets built once here. So a call that finds a free slot costs one adder increment and one histogram
 * record (its lease), a call that queued one more record, and none allocates. The gauges read the bulkhead through a weak reference and nothing else here refers to it, so a
 * bound bulkhead its owner drops can be collected. Thread-safe.
 */
final class BulkheadInstruments extends AttachedListener implements BulkheadListener {

    private final LongAdder admitted = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    /** Indexed by {@link Rejection.Reason#ordinal()}. */
    private final LongAdder[] rejected;
    private final Attributes admittedAttributes;
    private final Attributes cancelledAttributes;
    /** Indexed by {@link Rejection.Reason#ordinal()}. */
    private final Attributes[] rejectedAttributes;
    private final Attributes leaseAttributes;
    private final DoubleHistogram timeInQueue;
    private final DoubleHistogram leaseDuration;

    private BulkheadInstruments(Instruments instruments, String name) {
        Attributes named = Attributes.of(BULKHEAD_NAME, name);
        leaseAttributes = named;
        admittedAttributes = named.toBuilder().put(BULKHEAD_OUTCOME, "admitted").build();
        cancelledAttributes = named.toBuilder().put(BULKHEAD_OUTCOME, "cancelled").build();
        Rejection.Reason[] reasons = Rejection.Reason.values();
        rejected = new LongAdder[reasons.length];
        rejectedAttributes = new Attributes[reasons.length];
        for (Rejection.Reason reason : reasons) {
            rejected[reason.ordinal()] = new LongAdder();
            rejectedAttributes[reason.ordinal()] = named.toBuilder().put(BULKHEAD_OUTCOME, "rejected")
                    .put(BULKHEAD_REJECTION_REASON, reason.name().toLowerCase(Locale.ROOT)).build();
        }
        timeInQueue = instruments.timeInQueue;
        leaseDuration = instruments.leaseDuration;
    }

    /** Creates the listener of {@code bulkhead} and registers its asynchronous instruments in {@code observations}. */
    static BulkheadInstruments register(Instruments instruments, Bulkhead bulkhead, Observations observations) {
        BulkheadInstruments listener = new BulkheadInstruments(instruments, bulkhead.name());
        Meter meter = instruments.meter();
        Attributes named = listener.leaseAttributes;
        WeakReference<Bulkhead> weak = new WeakReference<>(bulkhead);
        observeState(meter, observations, weak, named, BULKHEAD_ACTIVE_LEASES, "Calls holding a slot of the bulkhead now",
                Bulkhead::executingCount);
        observeState(meter, observations, weak, named, BULKHEAD_QUEUED_CALLS, "Calls waiting for a slot of the bulkhead now",
                Bulkhead::queuedCount);
        observeState(meter, observations, weak, named, BULKHEAD_CONCURRENCY_LIMIT,
                "The bulkhead's concurrency limit in force", Bulkhead::maxConcurrency);
        observeState(meter, observations, weak, named, BULKHEAD_QUEUE_LIMIT, "The bulkhead's queue limit in force",
                Bulkhead::maxQueue);
        // The callback captures the adders and attributes, never the listener: the listener refers to its
        // subscription, which refers to the bulkhead, and the SDK holds callbacks strongly.
        LongAdder admitted = listener.admitted;
        LongAdder cancelled = listener.cancelled;
        LongAdder[] rejected = listener.rejected;
        Attributes admittedAttributes = listener.admittedAttributes;
        Attributes cancelledAttributes = listener.cancelledAttributes;
        Attributes[] rejectedAttributes = listener.rejectedAttributes;
        observations.add(meter.counterBuilder(BULKHEAD_CALLS).setUnit("{call}")
                .setDescription("Calls that reached the bulkhead, by how they ended there")
                .buildWithCallback(measurement -> {
                    measurement.record(admitted.sum(), admittedAttributes);
                    measurement.record(cancelled.sum(), cancelledAttributes);
                    for (int i = 0; i < rejected.length; i++) {
                        measurement.record(rejected[i].sum(), rejectedAttributes[i]);
                    }
                }));
        return listener;
    }

    private static void observeState(Meter meter, Observations observations, WeakReference<Bulkhead> bulkhead,
                                     Attributes attributes, String name, String description,
                                     ToIntFunction<Bulkhead> read) {
        observations.add(meter.upDownCounterBuilder(name).setUnit("{call}").setDescription(description)
                .buildWithCallback(measurement -> {
                    Bulkhead current = bulkhead.get();
                    if (current != null) {
                        measurement.record(read.applyAsInt(current), attributes);
                    }
                }));
    }

    // The BulkheadListener methods below receive nanoseconds and record them.

    @Override
    public void admitted(long waitedNanos) {
        onAdmitted(waitedNanos);
    }

    @Override
    public void rejected(Rejection rejection) {
        onRejected(rejection.reason(), Instruments.nanos(rejection.waited()));
    }

    @Override
    public void cancelled(long waitedNanos) {
        onCancelled(waitedNanos);
    }

    @Override
    public void released(long executionNanos) {
        onReleased(executionNanos);
    }

    void onAdmitted(long waitedNanos) {
        admitted.increment();
        // Like ASP.NET Core's time_in_queue, only calls that queued are recorded: a call that found a free slot has
        // no time in queue (it is counted in bulwark.bulkhead.calls), and the uncontended path skips a record.
        if (waitedNanos > 0) {
            timeInQueue.record(Instruments.seconds(waitedNanos), admittedAttributes);
        }
    }

    void onRejected(Rejection.Reason reason, long waitedNanos) {
        rejected[reason.ordinal()].increment();
        // Only refusals after waiting have a wait to show (a full queue refuses at once).
        if (reason == Rejection.Reason.WAIT_TIMEOUT || reason == Rejection.Reason.EVICTED) {
            timeInQueue.record(Instruments.seconds(waitedNanos), rejectedAttributes[reason.ordinal()]);
        }
    }

    void onCancelled(long waitedNanos) {
        cancelled.increment();
        timeInQueue.record(Instruments.seconds(waitedNanos), cancelledAttributes);
    }

    void onReleased(long heldNanos) {
        leaseDuration.record(Instruments.seconds(heldNanos), leaseAttributes);
    }

    @Override
    public String toString() {
        return "BulwarkTelemetry bulkhead listener";
    }
}
