package dev.bulwark.micrometer.internal;

import dev.bulwark.internal.stats.TimeWindow;
import dev.bulwark.internal.stats.TimerStatistics;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * How a {@code BulwarkMetrics} binds bulkheads: whether executions are timed exactly, and the window over which
 * maxima and percentiles are kept (Micrometer's {@code distributionStatisticExpiry} and
 * {@code distributionStatisticBufferLength}), where waits and refusals are observed, if anywhere, and the bounds of
 * the histograms published to Prometheus registries, if any. Immutable.
 */
public final class BindingOptions {

    private final boolean exactTiming;
    private final Duration expiry;
    private final int bufferLength;
    /** {@code null}: no observations. */
    private final ObservationRegistry observationRegistry;
    /** Ascending upper bounds in nanoseconds; {@code null}: no histograms. Never handed out. */
    private final long[] histogramBoundsNanos;

    /**
     * Creates the options.
     *
     * @param exactTiming whether bulkheads time every execution instead of a sample
     * @param expiry how long the window of maxima and percentiles is (checked)
     * @param bufferLength how many buffers the window rotates through (checked)
     * @param observationRegistry where bulkheads observe their waits and refusals, {@code null} for nowhere
     * @param histogramBounds the upper bounds of the histograms' buckets, ascending and positive (as checked by
     *     {@code BulwarkMetrics.Builder.histogramBuckets}), {@code null} for no histograms
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public BindingOptions(boolean exactTiming, Duration expiry, int bufferLength,
                          ObservationRegistry observationRegistry, List<Duration> histogramBounds) {
        this.observationRegistry = observationRegistry;
        this.histogramBoundsNanos = histogramBounds == null ? null
                : histogramBounds.stream().mapToLong(Duration::toNanos).toArray();
        this.exactTiming = exactTiming;
        this.expiry = TimeWindow.checkExpiry(expiry);
        this.bufferLength = TimeWindow.checkBufferLength(bufferLength);
    }

    /**
     * Returns whether bulkheads time every execution.
     *
     * @return {@code true} for exact timing
     */
    public boolean exactTiming() {
        return exactTiming;
    }

    /**
     * Returns whether bulkheads observe their waits and refusals.
     *
     * @return {@code true} when an observation registry was given
     */
    boolean observesWaits() {
        return observationRegistry != null;
    }

    /** New empty buckets for one histogram series, or {@code null} when no histograms are published. */
    BucketCounts newBuckets() {
        return histogramBoundsNanos == null ? null : new BucketCounts(histogramBoundsNanos);
    }

    /** The observations of a bulkhead called {@code name}, or {@code null} when none are made. */
    BulkheadObservations observations(String name) {
        return observationRegistry == null ? null : new BulkheadObservations(observationRegistry, name);
    }

    /** Statistics with a windowed max only, on {@code clock}. */
    TimerStatistics maxOnly(LongSupplier clock) {
        return TimerStatistics.maxOnly(clock, expiry, bufferLength);
    }

    /** Statistics with a windowed max and percentiles, on {@code clock}. */
    TimerStatistics withPercentiles(LongSupplier clock) {
        return TimerStatistics.withPercentiles(clock, expiry, bufferLength);
    }
}
