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
import dev.bulwark.Rejection;
import dev.bulwark.internal.binding.BulkheadObserver;
import dev.bulwark.internal.stats.CallTally;
import dev.bulwark.internal.stats.WindowedHistogram;
import dev.bulwark.internal.stats.WindowedMax;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import java.lang.ref.WeakReference;
import java.util.Locale;
import java.util.function.ToIntFunction;

/**
 * One bulkhead's instruments, fed by core's {@link BulkheadObserver} (which decides what is counted and recorded, and
 * when, for this binding and the Micrometer one alike); this class only says where each wait, lease and span event
 * goes. The call counts are the observer's own tallies (admissions in a thread's own cell, the rarer outcomes in
 * striped adders), read by an asynchronous counter at collection; the two histograms are recorded with attribute
 * sets built once here.
 *
 * <p><b>Sampled leases.</b> An in-process bulkhead reads the clock for a lease only when the observer's sampler picks
 * the call (every call below about 2,000 a second, then one in 2 to 256, so that 1,000 to 2,000 leases a second are
 * timed) and reports only the timed leases, which are recorded into {@code lease.duration}. That histogram is
 * therefore a sample of the leases: its buckets, mean, min and max estimate theirs, its count is the number of timed
 * leases; the exact number of leases is the {@code admitted} count of {@code bulwark.bulkhead.calls}. With exact
 * timing every lease is timed and recorded. Bulkheads that report every lease one by one (a cluster-wide one) are
 * recorded in full. So a call that finds a free slot and is not sampled costs one increment of its thread's cell and
 * no clock reading; a queued call one more record (its wait, measured anyway). Nothing allocates. Counts per
 * priority are {@link PriorityCounts}: a NORMAL admission, the common call, adds nothing to that.
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
final class BulkheadInstruments extends BulkheadObserver {

    private static final Wait[] WAITS = Wait.values();

    /** The attributes of each of {@link CallTally}'s outcomes, by its index. */
    private final Attributes[] outcomeAttributes;
    /** The attributes of {@code time_in_queue}, indexed by {@link Wait#ordinal()}. */
    private final Attributes[] waitAttributes;
    private final Attributes leaseAttributes;
    private final DoubleHistogram timeInQueue;
    private final DoubleHistogram leaseDuration;
    /** The timed leases of the recent window. */
    private final WindowedHistogram leases;
    /** The recorded waits of the recent window, indexed by {@link Wait#ordinal()}. */
    private final WindowedMax[] waits;

    /** The percentiles {@code lease.duration.percentile} publishes. */
    static final double[] PERCENTILES = {0.5, 0.95, 0.99};

    private BulkheadInstruments(Instruments instruments, String name, BindingOptions options) {
        super(options.timing(), options.spanEvents());
        leases = options.windowedHistogram();
        Attributes named = Attributes.of(BULKHEAD_NAME, name);
        leaseAttributes = named;
        outcomeAttributes = outcomeAttributes(named);
        waitAttributes = new Attributes[WAITS.length];
        waitAttributes[Wait.ADMITTED.ordinal()] = outcomeAttributes[CallTally.ADMITTED];
        waitAttributes[Wait.CANCELLED.ordinal()] = outcomeAttributes[CallTally.CANCELLED];
        for (Rejection.Reason reason : Rejection.Reason.values()) {
            Wait wait = Wait.of(reason);
            if (wait != null) {
                waitAttributes[wait.ordinal()] = outcomeAttributes[CallTally.outcomeOf(reason)];
            }
        }
        waits = new WindowedMax[WAITS.length];
        for (Wait wait : WAITS) {
            waits[wait.ordinal()] = options.windowedMax();
        }
        timeInQueue = instruments.timeInQueue;
        leaseDuration = instruments.leaseDuration;
    }

    /**
     * The attributes of each of {@link CallTally}'s outcomes, by its index: {@code named} with
     * {@code bulwark.bulkhead.outcome} and, for a refusal, {@code bulwark.bulkhead.rejection_reason}.
     */
    static Attributes[] outcomeAttributes(Attributes named) {
        Attributes[] attributes = new Attributes[CallTally.OUTCOMES];
        attributes[CallTally.ADMITTED] = named.toBuilder().put(BULKHEAD_OUTCOME, "admitted").build();
        attributes[CallTally.CANCELLED] = named.toBuilder().put(BULKHEAD_OUTCOME, "cancelled").build();
        for (Rejection.Reason reason : Rejection.Reason.values()) {
            attributes[CallTally.outcomeOf(reason)] = named.toBuilder().put(BULKHEAD_OUTCOME, "rejected")
                    .put(BULKHEAD_REJECTION_REASON, reason.name().toLowerCase(Locale.ROOT)).build();
        }
        return attributes;
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
        // The callback captures the tally and attributes, never the listener: the listener refers to its
        // subscription, which refers to the bulkhead, and the SDK holds callbacks strongly.
        CallTally calls = listener.calls();
        Attributes[] outcomeAttributes = listener.outcomeAttributes;
        observations.add(meter.counterBuilder(BULKHEAD_CALLS).setUnit("{call}")
                .setDescription("Calls that reached the bulkhead, by how they ended there")
                .buildWithCallback(measurement -> {
                    for (int outcome = 0; outcome < outcomeAttributes.length; outcome++) {
                        measurement.record(calls.count(outcome), outcomeAttributes[outcome]);
                    }
                }));
        PriorityCounts.register(meter, observations, named, listener.priorities());
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
        WindowedMax[] waits = listener.waits;
        Attributes[] waitAttributes = listener.waitAttributes;
        observations.add(meter.gaugeBuilder(BULKHEAD_TIME_IN_QUEUE_MAX).setUnit("s")
                .setDescription("The longest wait for a slot of the bulkhead over the recent window, by outcome")
                .buildWithCallback(measurement -> {
                    for (int i = 0; i < waits.length; i++) {
                        measurement.record(Instruments.seconds(waits[i].max()), waitAttributes[i]);
                    }
                }));
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

    // Like ASP.NET Core's time_in_queue, only calls that queued are recorded (the observer never reports a wait of a
    // call that found a free slot, nor of a refusal that need not follow a wait), as docs/opentelemetry.md says.
    @Override
    protected void recordWait(Wait wait, long nanos) {
        timeInQueue.record(Instruments.seconds(nanos), waitAttributes[wait.ordinal()]);
        waits[wait.ordinal()].record(nanos);
    }

    @Override
    protected void recordRelease(long nanos) {
        leaseDuration.record(Instruments.seconds(nanos), leaseAttributes);
        leases.record(nanos);
    }

    /** The lease count is the admitted count, kept anyway; the histogram holds the sample, unweighted. */
    @Override
    protected void recordSampledRelease(long nanos, long weight) {
        recordRelease(nanos);
    }

    /**
     * The caller's span, when it records: a queued call's event goes to it, whichever thread reports the outcome
     * (see {@code CallerContextListener}).
     */
    @Override
    protected Object captureCallerContext() {
        return SpanEvents.recordingSpan();
    }

    @Override
    protected void observe(int outcome, Rejection rejection, long waitedNanos, Object callerContext) {
        SpanEvents.add(outcomeAttributes[outcome], waitedNanos, callerContext);
    }

    @Override
    public String toString() {
        return "BulwarkTelemetry bulkhead listener";
    }
}
