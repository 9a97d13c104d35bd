package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTING;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTION;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTION_MAX;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTION_PERCENTILE;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_MAX_CONCURRENCY;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_MAX_QUEUE;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_QUEUED;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_WAIT;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_WAIT_MAX;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;
import static dev.bulwark.micrometer.MeterNames.TAG_PHI;

import dev.bulwark.Bulkhead;
import dev.bulwark.Rejection;
import dev.bulwark.internal.binding.BulkheadObserver;
import dev.bulwark.internal.stats.CallTally;
import dev.bulwark.internal.stats.TimerStatistics;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.concurrent.TimeUnit;

/**
 * One bulkhead's meters, fed by core's {@link BulkheadObserver} (which decides what is counted and recorded, and
 * when); this class only says where each wait, execution and observation goes. Nothing is recorded into Micrometer
 * per call: counts go to the observer's own tallies (read by function counters, {@link CallCounts}, exact), durations
 * to {@link TimerStatistics}
 * (striped counters, windowed maxima and a windowed lock-free log-linear histogram), and the timers are
 * {@link FunctionTimer}s and {@link TimeGauge}s that read them when scraped. Maxima and percentiles cover a recent
 * window rotated on the registry's clock when scraped ({@link BindingOptions}); counts and totals are cumulative.
 *
 * <ul>
 *   <li>Waits are exact without a clock reading on the fast path: a call that found a free slot waited 0, so the wait
 *       timer's count is the {@code admitted} counter and its total the sum of the non-zero waits (a queued call's
 *       wait is always measured, the bulkhead reads the clock for its deadline anyway).</li>
 *   <li>Executions are timed for the calls {@link #sampler()} picks (all of them with exact timing, or when calls are
 *       few); the count is exact, the total the sampled mean times the count, max and percentiles those of the
 *       sample. As a {@code SampledListener}, an in-process bulkhead reads no clock for a call outside the sample;
 *       other bulkheads call {@code released(long)} with every time, which is recorded as timed.</li>
 *   <li>Waits are published for the outcomes {@code admitted}, {@code rejected.wait_timeout} and {@code cancelled};
 *       an eviction's wait is counted but has no wait series here.</li>
 * </ul>
 *
 * <p>Reachability: the gauges read the bulkhead through a weak reference (Micrometer's default), and nothing here
 * refers to the bulkhead, so a bound bulkhead that its owner drops can be collected. Thread-safe and allocation-free
 * per event.
 */
final class BulkheadMeters extends BulkheadObserver {

    static final String ADMITTED = "admitted";
    static final String CANCELLED = "cancelled";
    /** The percentiles published for the execution time. */
    static final double[] PERCENTILES = {0.5, 0.95, 0.99};

    /** Non-zero waits only; the counts are the call counts'. Max only: the wait timers publish no percentiles. */
    private final TimerStatistics waitAdmitted;
    private final TimerStatistics waitTimedOut;
    private final TimerStatistics waitCancelled;
    /**
     * Timed executions. Its own count counts only the releases of bulkheads that report every one (the
     * {@code released(long)} path); an in-process bulkhead's releases are counted by {@link ExecutionSource}.
     */
    private final TimerStatistics execution;
    /** What the function meters read; held here because function meters hold their source only weakly. */
    private final Object[] sources;
    private final ExecutionSource executions;
    /** The observations of waits and refusals, {@code null} when off (then the observer never asks for them). */
    private final BulkheadObservations observations;
    /**
     * The histograms' buckets ({@link HistogramSeries}), {@code null} when no histogram is published (turned off, or
     * no Prometheus registry to publish in): then nothing is recorded for them.
     */
    private final BucketCounts waitAdmittedBuckets;
    private final BucketCounts waitTimedOutBuckets;
    private final BucketCounts waitCancelledBuckets;
    private final BucketCounts executionBuckets;

    private BulkheadMeters(MeterGroup group, Tags tags, Bulkhead bulkhead, BindingOptions options) {
        super(options.timing(), options.observesWaits());
        MeterRegistry registry = group.registry();
        observations = options.observations(bulkhead.name());
        LongSupplier clock = registry.config().clock()::monotonicTime;
        waitAdmitted = options.timing().maxOnly(clock);
        waitTimedOut = options.timing().maxOnly(clock);
        waitCancelled = options.timing().maxOnly(clock);
        execution = options.timing().withPercentiles(clock);
        CallTally counts = calls();
        CallCounts.register(group, tags, counts);
        PriorityCounts.register(group, tags, priorities());
        executions = new ExecutionSource(bulkhead, counts::admittedCount, execution);
        sources = new Object[] {
            counts,
            wait(group, tags, ADMITTED, counts::admittedCount, waitAdmitted),
            wait(group, tags, rejectedOutcome(Rejection.Reason.WAIT_TIMEOUT),
                    () -> counts.rejectedCount(Rejection.Reason.WAIT_TIMEOUT), waitTimedOut),
            wait(group, tags, CANCELLED, counts::cancelledCount, waitCancelled),
            executions, priorities()};
        TimerStatistics timed = execution;
        group.add(FunctionTimer.builder(BULKHEAD_EXECUTION, executions, ExecutionSource::count,
                        ExecutionSource::totalNanos, TimeUnit.NANOSECONDS).tags(tags)
                .description("How long admitted calls held their slot of the bulkhead").register(registry));
        group.add(TimeGauge.builder(BULKHEAD_EXECUTION_MAX, timed, TimeUnit.NANOSECONDS,
                        TimerStatistics::maxNanos).tags(tags)
                .description("The longest time a timed call held its slot of the bulkhead, over the recent window")
                .register(registry));
        for (double phi : PERCENTILES) {
            group.add(TimeGauge.builder(BULKHEAD_EXECUTION_PERCENTILE, timed, TimeUnit.NANOSECONDS,
                            statistics -> statistics.percentileNanos(phi)).tags(tags).tag(TAG_PHI, Double.toString(phi))
                    .description("A percentile of how long timed calls held their slot of the bulkhead, recent window")
                    .register(registry));
        }
        BucketCounts[] buckets = {options.newBuckets(), options.newBuckets(), options.newBuckets(),
            options.newBuckets()};
        Runnable removal = buckets[0] == null ? null : HistogramTargets.publish(registry, List.of(
                waitSeries(tags, ADMITTED, counts::admittedCount, waitAdmitted, buckets[0]),
                waitSeries(tags, rejectedOutcome(Rejection.Reason.WAIT_TIMEOUT),
                        () -> counts.rejectedCount(Rejection.Reason.WAIT_TIMEOUT), waitTimedOut, buckets[1]),
                waitSeries(tags, CANCELLED, counts::cancelledCount, waitCancelled, buckets[2]),
                HistogramSeries.scaled(BULKHEAD_EXECUTION, tags, executions::count, executions::totalNanos,
                        buckets[3])));
        if (removal == null) {
            Arrays.fill(buckets, null);
        } else {
            group.onRemoval(removal);
        }
        waitAdmittedBuckets = buckets[0];
        waitTimedOutBuckets = buckets[1];
        waitCancelledBuckets = buckets[2];
        executionBuckets = buckets[3];
    }

    private static HistogramSeries waitSeries(Tags tags, String outcome, LongSupplier count, TimerStatistics waits,
                                              BucketCounts buckets) {
        return HistogramSeries.withUntimedZeros(BULKHEAD_WAIT, tags.and(TAG_OUTCOME, outcome), count,
                waits::timedCount, waits::timedTotalNanos, buckets);
    }

    /**
     * Registers the meters of {@code bulkhead} in {@code group} and returns the listener that feeds them (not yet
     * attached).
     *
     * @param options exact or sampled timing, and the window of maxima and percentiles
     */
    static BulkheadMeters register(MeterGroup group, Tags tags, Bulkhead bulkhead, BindingOptions options) {
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
        return new BulkheadMeters(group, tags, bulkhead, options);
    }

    static String rejectedOutcome(Rejection.Reason reason) {
        return CallCounts.rejectedOutcome(reason);
    }

    /** A wait timer whose count is {@code count}'s and whose total is the sum of the non-zero waits. */
    private static WaitSource wait(MeterGroup group, Tags tags, String outcome, LongSupplier count,
                                   TimerStatistics waits) {
        WaitSource source = new WaitSource(count, waits);
        group.add(FunctionTimer.builder(BULKHEAD_WAIT, source, WaitSource::count, WaitSource::totalNanos,
                        TimeUnit.NANOSECONDS).tags(tags).tag(TAG_OUTCOME, outcome)
                .description("How long calls waited for a slot of the bulkhead, by how the wait ended")
                .register(group.registry()));
        group.add(TimeGauge.builder(BULKHEAD_WAIT_MAX, waits, TimeUnit.NANOSECONDS, TimerStatistics::maxNanos)
                .tags(tags).tag(TAG_OUTCOME, outcome)
                .description("The longest wait for a slot of the bulkhead over the recent window, by how it ended")
                .register(group.registry()));
        return source;
    }

    /** What a wait timer reads: the outcome's cumulative count and the timed waits. */
    private static final class WaitSource {
        final LongSupplier count;
        final TimerStatistics waits;

        WaitSource(LongSupplier count, TimerStatistics waits) {
            this.count = count;
            this.waits = waits;
        }

        long count() {
            return count.getAsLong();
        }

        double totalNanos() {
            return waits.timedTotalNanos();
        }
    }

    @Override
    public void releasesSampled() {
        executions.releasesSampled();
    }

    @Override
    protected void recordWait(Wait wait, long nanos) {
        switch (wait) {
            case ADMITTED:
                record(waitAdmitted, waitAdmittedBuckets, nanos);
                break;
            case TIMED_OUT:
                record(waitTimedOut, waitTimedOutBuckets, nanos);
                break;
            case CANCELLED:
                record(waitCancelled, waitCancelledBuckets, nanos);
                break;
            default:
                break; // an eviction's wait has no series here (docs/observability.md)
        }
    }

    private static void record(TimerStatistics waits, BucketCounts buckets, long nanos) {
        waits.recordTimed(nanos);
        if (buckets != null) {
            buckets.record(nanos, 1L);
        }
    }

    @Override
    protected void recordRelease(long nanos) {
        record(execution, executionBuckets, nanos);
    }

    @Override
    protected void recordSampledRelease(long nanos, long weight) {
        execution.recordSample(nanos);
        if (executionBuckets != null) {
            executionBuckets.record(nanos, weight); // weighed as the calls it stands for (see BucketCounts)
        }
    }

    /**
     * The caller's current observation: a queued call's observation is its child, whichever thread reports the
     * outcome (see {@code CallerContextListener}).
     */
    @Override
    protected Object captureCallerContext() {
        return observations.current();
    }

    @Override
    protected void observe(int outcome, Rejection rejection, long waitedNanos, Object callerContext) {
        observations.observe(CallCounts.outcomeTag(outcome), rejection, waitedNanos, callerContext);
    }

    @Override
    public String toString() {
        return "BulwarkMetrics bulkhead listener (" + sources.length + " function meter sources)";
    }
}
