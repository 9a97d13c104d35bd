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
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.binding.AttachedListener;
import dev.bulwark.internal.stats.CallerContextListener;
import dev.bulwark.internal.stats.PriorityTally;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.ThreadOwnedCounter;
import dev.bulwark.internal.stats.TimerStatistics;
import dev.bulwark.internal.stats.TimingSampler;
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
 * One bulkhead's meters, fed as its listener. Nothing is recorded into Micrometer per call: counts go to the
 * binding's own {@link CallCounts} (read by function counters, exact), durations to {@link TimerStatistics}
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
 *       sample. As a {@link SampledListener}, an in-process bulkhead reads no clock for a call outside the sample;
 *       other bulkheads call {@link #released(long)} with every time, which is recorded as timed.</li>
 * </ul>
 *
 * <p>Reachability: the gauges read the bulkhead through a weak reference (Micrometer's default), and nothing here
 * refers to the bulkhead, so a bound bulkhead that its owner drops can be collected. Thread-safe and allocation-free
 * per event.
 */
final class BulkheadMeters extends AttachedListener implements SampledListener, CallerContextListener {

    static final String ADMITTED = "admitted";
    static final String CANCELLED = "cancelled";
    /** The percentiles published for the execution time. */
    static final double[] PERCENTILES = {0.5, 0.95, 0.99};

    private final TimingSampler sampler;
    private final CallCounts calls;
    /** {@code calls}' admission counter, held directly: the one count every call makes. */
    private final ThreadOwnedCounter admissions;
    private final PriorityTally priorities;
    /** Non-zero waits only; the counts are the call counts'. Max only: the wait timers publish no percentiles. */
    private final TimerStatistics waitAdmitted;
    private final TimerStatistics waitTimedOut;
    private final TimerStatistics waitCancelled;
    /**
     * Timed executions. Its own count counts only the releases of bulkheads that report every one (the
     * {@link #released(long)} path); an in-process bulkhead's releases are counted by {@link ExecutionSource}.
     */
    private final TimerStatistics execution;
    /** What the function meters read; held here because function meters hold their source only weakly. */
    private final Object[] sources;
    private final ExecutionSource executions;
    /**
     * The observations of waits and refusals, {@code null} when off: read only on a wait or a refusal, so the call
     * that found a free slot pays nothing for it either way.
     */
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
        MeterRegistry registry = group.registry();
        sampler = options.exactTiming() ? TimingSampler.exact() : TimingSampler.adaptive();
        observations = options.observations(bulkhead.name());
        LongSupplier clock = registry.config().clock()::monotonicTime;
        waitAdmitted = options.maxOnly(clock);
        waitTimedOut = options.maxOnly(clock);
        waitCancelled = options.maxOnly(clock);
        execution = options.withPercentiles(clock);
        calls = CallCounts.register(group, tags);
        admissions = calls.admissions();
        CallCounts counts = calls;
        priorities = PriorityCounts.register(group, tags, counts::admittedCount);
        executions = new ExecutionSource(bulkhead, counts::admittedCount, execution);
        sources = new Object[] {
            calls,
            wait(group, tags, ADMITTED, counts::admittedCount, waitAdmitted),
            wait(group, tags, rejectedOutcome(Rejection.Reason.WAIT_TIMEOUT),
                    () -> counts.rejectedCount(Rejection.Reason.WAIT_TIMEOUT), waitTimedOut),
            wait(group, tags, CANCELLED, counts::cancelledCount, waitCancelled),
            executions, priorities};
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
    public TimingSampler sampler() {
        return sampler;
    }

    @Override
    public void releasesSampled() {
        executions.releasesSampled();
    }

    @Override
    public void admitted(long waitedNanos) {
        admitted(waitedNanos, Priority.NORMAL);
    }

    @Override
    public void admitted(long waitedNanos, Priority priority) {
        admitted(waitedNanos, priority, null);
    }

    /**
     * The caller's current observation, when observations are made: a queued call's observation is its child,
     * whichever thread reports the outcome (see {@link CallerContextListener}).
     */
    @Override
    public Object callerContext() {
        return observations == null ? null : observations.current();
    }

    @Override
    public void admitted(long waitedNanos, Priority priority, Object callerContext) {
        priorities.admitted(priority); // before the total: see PriorityTally
        admissions.increment();
        if (waitedNanos > 0) {
            waitAdmitted.recordTimed(waitedNanos);
            if (waitAdmittedBuckets != null) {
                waitAdmittedBuckets.record(waitedNanos, 1L);
            }
            if (observations != null) {
                observations.observe(ADMITTED, null, waitedNanos, callerContext);
            }
        }
    }

    @Override
    public void rejected(Rejection rejection) {
        rejected(rejection, null);
    }

    @Override
    public void rejected(Rejection rejection, Object callerContext) {
        priorities.rejected(rejection.priority());
        if (rejection.reason() == Rejection.Reason.WAIT_TIMEOUT) {
            waitTimedOut.recordTimed(rejection.waited().toNanos());
            if (waitTimedOutBuckets != null) {
                waitTimedOutBuckets.record(rejection.waited().toNanos(), 1L);
            }
        }
        calls.rejected(rejection.reason()); // after the wait: a scrape that sees the count sees its wait
        if (observations != null) {
            observations.observe(rejectedOutcome(rejection.reason()), rejection, rejection.waited().toNanos(),
                    callerContext);
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
        waitCancelled.recordTimed(waitedNanos);
        if (waitCancelledBuckets != null) {
            waitCancelledBuckets.record(waitedNanos, 1L);
        }
        calls.cancelled();
        if (observations != null) {
            observations.observe(CANCELLED, null, waitedNanos, callerContext);
        }
    }

    @Override
    public void released(long executionNanos) {
        execution.recordTimed(executionNanos);
        if (executionBuckets != null) {
            executionBuckets.record(executionNanos, 1L);
        }
    }

    @Override
    public void released(long executionNanos, long endedAt) {
        if (executionNanos != UNTIMED) {
            execution.recordSample(executionNanos);
            if (executionBuckets != null) {
                // Weighed as the calls it stands for: one in mask + 1 is timed (see BucketCounts).
                executionBuckets.record(executionNanos, sampler.mask() + 1L);
            }
            sampler.timed(endedAt);
        }
    }

    @Override
    public String toString() {
        return "BulwarkMetrics bulkhead listener (" + sources.length + " function meter sources)";
    }
}
