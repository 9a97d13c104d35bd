package dev.bulwark.micrometer.internal;

import dev.bulwark.internal.stats.TimingOptions;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;

/**
 * How a {@code BulwarkMetrics} binds bulkheads: whether executions are timed exactly, and the window over which
 * maxima and percentiles are kept (Micrometer's {@code distributionStatisticExpiry} and
 * {@code distributionStatisticBufferLength}), where waits and refusals are observed, if anywhere, and the bounds of
 * the histograms published to Prometheus registries, if any. Immutable.
 */
public final class BindingOptions {

    /** Exact or sampled timing and the window: the same for both back ends (core's). */
    private final TimingOptions timing;
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
        this.timing = new TimingOptions(exactTiming, expiry, bufferLength);
    }

    /**
     * Returns whether bulkheads time every execution, and the window of their maxima and percentiles.
     *
     * @return the timing options
     */
    public TimingOptions timing() {
        return timing;
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

}
