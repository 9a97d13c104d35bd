package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_ACTIVE_LEASES;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CONCURRENCY_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION_MAX;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION_PERCENTILE;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PERCENTILE;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_QUEUED_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_QUEUE_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_REJECTION_REASON;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE_MAX;

import dev.bulwark.Bulkhead;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.binding.AttachedListener;
import dev.bulwark.internal.stats.CallerContextListener;
import dev.bulwark.internal.stats.PriorityTally;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.ThreadOwnedCounter;
import dev.bulwark.internal.stats.TimingSampler;
import dev.bulwark.internal.stats.WindowedHistogram;
import dev.bulwark.internal.stats.WindowedMax;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import java.lang.ref.WeakReference;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToIntFunction;

/**
 * Records one bulkhead's events. Design: the call counts are read by an asynchronous counter at collection; the
 * admissions, counted on every call, in a {@link ThreadOwnedCounter} (a thread's own cell, no atomic
 * read-modify-write), the rarer outcomes in {@link LongAdder}s (striped, so concurrent callers do not contend on one
 * cache line); the two histograms are recorded with attribute sets built once here.
 *
 * <p><b>Sampled leases.</b> Like the Micrometer binding, this is a {@link SampledListener}: an in-process bulkhead
 * reads the clock for a lease only when {@link #sampler()} picks the call (every call below about 2,000 a second,
 * then one in 2 to 256, so that 1,000 to 2,000 leases a second are timed) and reports only the timed leases, which
 * are recorded into {@code lease.duration}. That histogram is therefore a sample of the leases: its buckets, mean,
 * min and max estimate theirs, its count is the number of timed leases; the exact number of leases is the
 * {@code admitted} count of {@code bulwark.bulkhead.calls}. With exact timing every lease is timed and recorded.
 * Bulkheads that report every lease through {@link #released(long)} (a cluster-wide one) are recorded in full.
 * So a call that finds a free slot and is not sampled costs one increment of its thread's cell and no clock
 * reading; a queued call one more record (its wait, measured anyway). Nothing allocates. Counts per priority are
 * {@link PriorityCounts}: a NORMAL admission, the common call, adds nothing to that.
 *
 * <p><b>Windowed maxima and percentiles.</b> OpenTelemetry histograms keep their min and max since the start of the
 * series (with cumulative temporality), so the binding also keeps the recent window's, like a Micrometer timer's: the
 * timed leases go to a {@link WindowedHistogram}, each recorded queued wait to a {@link WindowedMax} of its outcome,
 * and asynchronous gauges read them at collection. Both are recorded only where a clock was read anyway (timed
 * leases, queued waits), never for an untimed call.
 *
 * <p>The gauges read the bulkhead through a weak reference and nothing else here refers to it, so a bound bulkhead
 * its owner drops can be collected. Thread-safe.
 */
final class BulkheadInstruments extends AttachedListener implements SampledListener, CallerContextListener {

    /** Every call admitted: the one count on the uncontended path, so not a LongAdder (see ThreadOwnedCounter). */
    private final ThreadOwnedCounter admitted = new ThreadOwnedCounter();
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
    private final TimingSampler sampler;
    /** Counts per priority, reported by {@link PriorityCounts}. */
    private final PriorityTally priorities;
    /** The timed leases of the recent window. */
    private final WindowedHistogram leases;
    /** The recorded waits of the recent window: admitted, cancelled, and by rejection reason ordinal. */
    private final WindowedMax waitAdmitted;
    private final WindowedMax waitCancelled;
    private final WindowedMax[] waitRejected;
    /** Whether a wait or a refusal adds a span event: read only then, never for a call that found a free slot. */
    private final boolean spanEvents;

    /** The percentiles {@code lease.duration.percentile} publishes. */
    static final double[] PERCENTILES = {0.5, 0.95, 0.99};

    private BulkheadInstruments(Instruments instruments, String name, BindingOptions options) {
        sampler = options.exactTiming() ? TimingSampler.exact() : TimingSampler.adaptive();
        spanEvents = options.spanEvents();
        leases = options.windowedHistogram();
        waitAdmitted = options.windowedMax();
        waitCancelled = options.windowedMax();
        Attributes named = Attributes.of(BULKHEAD_NAME, name);
        leaseAttributes = named;
        priorities = new PriorityTally(admitted::sum);
        admittedAttributes = named.toBuilder().put(BULKHEAD_OUTCOME, "admitted").build();
        cancelledAttributes = named.toBuilder().put(BULKHEAD_OUTCOME, "cancelled").build();
        Rejection.Reason[] reasons = Rejection.Reason.values();
        rejected = new LongAdder[reasons.length];
        rejectedAttributes = new Attributes[reasons.length];
        waitRejected = new WindowedMax[reasons.length];
        for (Rejection.Reason reason : reasons) {
            if (queuedRefusal(reason)) {
                waitRejected[reason.ordinal()] = options.windowedMax();
            }
            rejected[reason.ordinal()] = new LongAdder();
            rejectedAttributes[reason.ordinal()] = named.toBuilder().put(BULKHEAD_OUTCOME, "rejected")
                    .put(BULKHEAD_REJECTION_REASON, reason.name().toLowerCase(Locale.ROOT)).build();
        }
        timeInQueue = instruments.timeInQueue;
        leaseDuration = instruments.leaseDuration;
    }

    /**
     * Creates the listener of {@code bulkhead} and registers its asynchronous instruments in {@code observations}.
     *
     * @param options exact or sampled timing, and the window of maxima and percentiles
     */
    static BulkheadInstruments register(Instruments instruments, Bulkhead bulkhead, Observations observations,
                                        BindingOptions options) {
        BulkheadInstruments listener = new BulkheadInstruments(instruments, bulkhead.name(), options);
        Meter meter = instruments.meter();
        Attributes named = listener.leaseAttributes;
        WeakReference<Bulkhead> weak = new WeakReference<>(bulkhead);
        observeState(meter, observations, weak, named, BULKHEAD_ACTIVE_LEASES,
                "Calls holding a slot of the bulkhead now", Bulkhead::executingCount);
        observeState(meter, observations, weak, named, BULKHEAD_QUEUED_CALLS,
                "Calls waiting for a slot of the bulkhead now", Bulkhead::queuedCount);
        observeState(meter, observations, weak, named, BULKHEAD_CONCURRENCY_LIMIT,
                "The bulkhead's concurrency limit in force", Bulkhead::maxConcurrency);
        observeState(meter, observations, weak, named, BULKHEAD_QUEUE_LIMIT, "The bulkhead's queue limit in force",
                Bulkhead::maxQueue);
        // The callback captures the adders and attributes, never the listener: the listener refers to its
        // subscription, which refers to the bulkhead, and the SDK holds callbacks strongly.
        ThreadOwnedCounter admitted = listener.admitted;
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
        PriorityCounts.register(meter, observations, named, listener.priorities);
        observeWindows(meter, observations, listener);
        return listener;
    }

    /** The gauges of the windowed statistics; like the counters' callback, they capture no listener. */
    private static void observeWindows(Meter meter, Observations observations, BulkheadInstruments listener) {
        WindowedHistogram leases = listener.leases;
        Attributes named = listener.leaseAttributes;
        observations.add(meter.gaugeBuilder(BULKHEAD_LEASE_DURATION_MAX).setUnit("s")
                .setDescription("The longest timed lease of the bulkhead over the recent window")
                .buildWithCallback(measurement -> measurement.record(Instruments.seconds(leases.max()), named)));
        Attributes[] percentileAttributes = new Attributes[PERCENTILES.length];
        for (int i = 0; i < PERCENTILES.length; i++) {
            percentileAttributes[i] = named.toBuilder().put(BULKHEAD_PERCENTILE, Double.toString(PERCENTILES[i]))
                    .build();
        }
        observations.add(meter.gaugeBuilder(BULKHEAD_LEASE_DURATION_PERCENTILE).setUnit("s")
                .setDescription("Percentiles of the timed leases of the bulkhead over the recent window")
                .buildWithCallback(measurement -> {
                    for (int i = 0; i < PERCENTILES.length; i++) {
                        measurement.record(Instruments.seconds(leases.valueAtPercentile(PERCENTILES[i])),
                                percentileAttributes[i]);
                    }
                }));
        WindowedMax admitted = listener.waitAdmitted;
        WindowedMax cancelled = listener.waitCancelled;
        WindowedMax[] rejected = listener.waitRejected;
        Attributes admittedAttributes = listener.admittedAttributes;
        Attributes cancelledAttributes = listener.cancelledAttributes;
        Attributes[] rejectedAttributes = listener.rejectedAttributes;
        observations.add(meter.gaugeBuilder(BULKHEAD_TIME_IN_QUEUE_MAX).setUnit("s")
                .setDescription("The longest wait for a slot of the bulkhead over the recent window, by outcome")
                .buildWithCallback(measurement -> {
                    measurement.record(Instruments.seconds(admitted.max()), admittedAttributes);
                    measurement.record(Instruments.seconds(cancelled.max()), cancelledAttributes);
                    for (int i = 0; i < rejected.length; i++) {
                        if (rejected[i] != null) {
                            measurement.record(Instruments.seconds(rejected[i].max()), rejectedAttributes[i]);
                        }
                    }
                }));
    }

    /** The refusals that always follow a wait, whose wait {@code call.time_in_queue} records. */
    private static boolean queuedRefusal(Rejection.Reason reason) {
        return reason == Rejection.Reason.WAIT_TIMEOUT || reason == Rejection.Reason.EVICTED;
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

    // The BulkheadListener methods below receive nanoseconds and record them. The one-argument forms serve
    // bulkheads that report no priority: their calls are NORMAL ones.

    @Override
    public void admitted(long waitedNanos) {
        admitted(waitedNanos, Priority.NORMAL);
    }

    @Override
    public void admitted(long waitedNanos, Priority priority) {
        admitted(waitedNanos, priority, null);
    }

    @Override
    public void admitted(long waitedNanos, Priority priority, Object callerContext) {
        priorities.admitted(priority); // before the total: see PriorityTally
        onAdmitted(waitedNanos, callerContext);
    }

    /**
     * The caller's span, when span events are on and it records: a queued call's event goes to it, whichever thread
     * reports the outcome (see {@link CallerContextListener}).
     */
    @Override
    public Object callerContext() {
        return spanEvents ? SpanEvents.recordingSpan() : null;
    }

    @Override
    public void rejected(Rejection rejection) {
        rejected(rejection, null);
    }

    @Override
    public void rejected(Rejection rejection, Object callerContext) {
        priorities.rejected(rejection.priority());
        long waitedNanos = Instruments.nanos(rejection.waited());
        onRejected(rejection.reason(), waitedNanos);
        if (spanEvents) {
            SpanEvents.add(rejectedAttributes[rejection.reason().ordinal()], waitedNanos, callerContext);
        }
    }

    @Override
    public void cancelled(long waitedNanos) {
        cancelled(waitedNanos, Priority.NORMAL);
    }

    @Override
    public void cancelled(long waitedNanos, Priority priority) {
        cancelled(waitedNanos, priority, null);
    }

    @Override
    public void cancelled(long waitedNanos, Priority priority, Object callerContext) {
        priorities.cancelled(priority);
        onCancelled(waitedNanos);
        if (spanEvents) {
            SpanEvents.add(cancelledAttributes, waitedNanos, callerContext);
        }
    }

    @Override
    public void released(long executionNanos) {
        onReleased(executionNanos);
    }

    @Override
    public TimingSampler sampler() {
        return sampler;
    }

    @Override
    public void releasesSampled() {
        // Nothing to derive: the lease count is the admitted count, kept anyway; the histogram holds the sample.
    }

    @Override
    public void released(long executionNanos, long endedAt) {
        if (executionNanos != UNTIMED) {
            onReleased(executionNanos);
            sampler.timed(endedAt);
        }
    }

    /** Counts an admission; {@code callerContext} is the caller's span or {@code null} for the current one. */
    void onAdmitted(long waitedNanos, Object callerContext) {
        admitted.increment();
        // Like ASP.NET Core's time_in_queue, only calls that queued are recorded: a call that found a free slot has
        // no time in queue (it is counted in bulwark.bulkhead.calls), and the uncontended path skips a record.
        if (waitedNanos > 0) {
            timeInQueue.record(Instruments.seconds(waitedNanos), admittedAttributes);
            waitAdmitted.record(waitedNanos);
            if (spanEvents) {
                SpanEvents.add(admittedAttributes, waitedNanos, callerContext);
            }
        }
    }

    void onRejected(Rejection.Reason reason, long waitedNanos) {
        rejected[reason.ordinal()].increment();
        // Only the refusals that always follow a wait are recorded (a full queue refuses at once); a close or a
        // lowered limit may refuse a call that waited or one that just arrived, and is counted in calls only, as
        // docs/opentelemetry.md says.
        if (queuedRefusal(reason)) {
            timeInQueue.record(Instruments.seconds(waitedNanos), rejectedAttributes[reason.ordinal()]);
            waitRejected[reason.ordinal()].record(waitedNanos);
        }
    }

    void onCancelled(long waitedNanos) {
        cancelled.increment();
        timeInQueue.record(Instruments.seconds(waitedNanos), cancelledAttributes);
        waitCancelled.record(waitedNanos);
    }

    void onReleased(long heldNanos) {
        leaseDuration.record(Instruments.seconds(heldNanos), leaseAttributes);
        leases.record(heldNanos);
    }

    @Override
    public String toString() {
        return "BulwarkTelemetry bulkhead listener";
    }
}
