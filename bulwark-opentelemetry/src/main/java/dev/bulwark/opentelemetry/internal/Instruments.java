package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_CALL_DURATION;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import java.lang.ref.Cleaner;
import java.time.Duration;
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

    /** Closes the observations of a policy that was garbage-collected. One daemon thread, started on first use. */
    static final Cleaner CLEANER = Cleaner.create(task -> {
        Thread thread = new Thread(task, "bulwark-opentelemetry-cleaner");
        thread.setDaemon(true);
        return thread;
    });

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

    /** A {@code Duration} (a rejection's wait) to nanoseconds, saturating (such durations are never negative). */
    static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }
}
