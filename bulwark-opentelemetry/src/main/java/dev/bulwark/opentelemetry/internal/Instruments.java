package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_CALL_DURATION;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import java.util.List;

/**
 * The meter of one {@code BulwarkTelemetry} and the histograms every binding shares (a histogram is one instrument
 * whatever the number of policies; each policy records with its own pre-built attributes). Immutable, thread-safe.
 */
public final class Instruments {

    /**
     * Bucket boundaries, in seconds, advised for every duration histogram: from 100 µs (a queue wait that barely
     * happened) to 10 s, the range in which bulkhead waits and leases live (the SDK's default boundaries assume
     * milliseconds and would put every wait in the first bucket).
     */
    static final List<Double> SECONDS_BUCKETS = List.of(0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
            0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0);

    private static final double NANOS_PER_SECOND = 1e9;

    private final Meter meter;
    final DoubleHistogram timeInQueue;
    final DoubleHistogram leaseDuration;
    final DoubleHistogram timeoutDuration;

    /**
     * Creates the meter and the shared histograms.
     *
     * @param openTelemetry where the meter comes from
     */
    public Instruments(OpenTelemetry openTelemetry) {
        String version = Instruments.class.getPackage().getImplementationVersion();
        var builder = openTelemetry.getMeterProvider().meterBuilder(dev.bulwark.opentelemetry.InstrumentNames.SCOPE);
        this.meter = (version == null ? builder : builder.setInstrumentationVersion(version)).build();
        this.timeInQueue = meter.histogramBuilder(BULKHEAD_TIME_IN_QUEUE).setUnit("s")
                .setDescription("How long calls waited for a slot of the bulkhead, by how the wait ended")
                .setExplicitBucketBoundariesAdvice(SECONDS_BUCKETS).build();
        this.leaseDuration = meter.histogramBuilder(BULKHEAD_LEASE_DURATION).setUnit("s")
                .setDescription("How long admitted calls held their slot of the bulkhead")
                .setExplicitBucketBoundariesAdvice(SECONDS_BUCKETS).build();
        this.timeoutDuration = meter.histogramBuilder(TIMEOUT_CALL_DURATION).setUnit("s")
                .setDescription("How long calls through the timeout took when they ended before the deadline")
                .setExplicitBucketBoundariesAdvice(SECONDS_BUCKETS).build();
        prepareFirstRecord();
    }

    /**
     * Does here, on the thread that makes the binder, what a histogram's first record would otherwise do on a
     * caller's thread (issue 37): the SDK records with the caller's current context, whose storage is looked up
     * through a {@code ServiceLoader} on its first use in the JVM, and its trace-based exemplar filter asks that
     * context for its {@link Span}; {@link Span#current()} does both. Measured in fresh JVMs
     * ({@code TelemetryFirstCallsTest}), that made the first call through a bound bulkhead load 69 classes on its
     * release and take 36 to 290 ms instead of 0.1 to 0.3 ms. The first record of each series still builds its
     * aggregator in the SDK (18 classes, 8 to 10 ms of CPU in a fresh JVM): doing that here would record a value
     * nobody measured.
     * Reading the current context fixes which context storage the JVM uses, as the first record would a moment
     * later: wrappers of it must be added before. Honours the core's switch: with the system property
     * {@code dev.bulwark.rehearseFirstUse} set to {@code false} the first record pays it, as before.
     */
    private static void prepareFirstRecord() {
        if (!"false".equalsIgnoreCase(System.getProperty("dev.bulwark.rehearseFirstUse"))) {
            Span.current().getSpanContext().isSampled();
        }
    }

    /**
     * Returns the meter of every instrument.
     *
     * @return the meter
     */
    public Meter meter() {
        return meter;
    }

    /**
     * The one place where a listener's nanoseconds become the recorded value (seconds, as OpenTelemetry's
     * conventions want).
     */
    static double seconds(long nanos) {
        return nanos / NANOS_PER_SECOND;
    }
}
