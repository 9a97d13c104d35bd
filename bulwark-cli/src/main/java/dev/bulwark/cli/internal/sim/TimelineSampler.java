package dev.bulwark.cli.internal.sim;

import dev.bulwark.Bulkhead;
import dev.bulwark.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.HdrHistogram.Histogram;

/**
 * Takes the run's pulse at a fixed interval: appends a {@link Sample} to the time series, folds the latencies
 * recorded since the last sample into the run's cumulative histograms, and tells the progress listener.
 * Thread-safe: {@link #sample} runs on the sampling thread during the run and once more on the simulation thread
 * at the end, serialized by a lock.
 */
final class TimelineSampler {

    private static final long ONE_SECOND = 1_000_000_000L;

    private final long startNanos;
    private final Ticker ticker;
    private final Duration duration;
    private final RunMeasurements measurements;
    private final Downstream downstream;
    private final Bulkhead bulkhead;
    private final ProgressListener listener;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private final List<Sample> samples = new ArrayList<>();
    private final Histogram endToEndMicros = new Histogram(3);
    private final Histogram queueWaitMicros = new Histogram(3);
    private volatile Progress.Phase phase = Progress.Phase.RUNNING;

    TimelineSampler(long startNanos, Ticker ticker, Duration duration, RunMeasurements measurements,
                    Downstream downstream, Bulkhead bulkhead, ProgressListener listener) {
        this.startNanos = startNanos;
        this.ticker = ticker;
        this.duration = duration;
        this.measurements = measurements;
        this.downstream = downstream;
        this.bulkhead = bulkhead;
        this.listener = listener;
        samples.add(new Sample(0, 0, 0, 0, 0, 0, 0, 0, bulkhead == null ? 0 : bulkhead.maxConcurrency()));
    }

    void phase(Progress.Phase phase) {
        this.phase = phase;
    }

    /** Records one sample and reports progress; called at every tick and once at the end. */
    void sample() {
        Progress progress;
        lock.lock();
        try {
            long elapsed = ticker.read() - startNanos;
            int queued = bulkhead == null ? 0 : bulkhead.queuedCount();
            measurements.observeQueued(queued);
            OutcomeCounts counts = measurements.counts();
            Sample sample = new Sample(elapsed, counts.arrivals(), counts.count(CallOutcome.COMPLETED),
                    counts.rejected(), counts.count(CallOutcome.TIMED_OUT), counts.count(CallOutcome.CANCELLED),
                    downstream.inFlight(), queued, bulkhead == null ? 0 : bulkhead.maxConcurrency());
            samples.add(sample);
            measurements.drainEndToEnd(endToEndMicros);
            measurements.drainQueueWait(queueWaitMicros);
            Sample earlier = sampleBefore(elapsed - ONE_SECOND);
            double seconds = Math.max(1e-9, (elapsed - earlier.elapsedNanos()) / 1e9);
            double p99 = endToEndMicros.getTotalCount() == 0 ? Double.NaN
                    : endToEndMicros.getValueAtPercentile(99.0) / 1000.0;
            progress = new Progress(Duration.ofNanos(elapsed), duration, phase,
                    (sample.arrivals() - earlier.arrivals()) / seconds, sample.inFlight(), sample.queued(),
                    (sample.rejected() - earlier.rejected()) / seconds, p99);
        } finally {
            lock.unlock();
        }
        listener.progress(progress);
    }

    /** The latest sample taken at or before {@code elapsedNanos}, or the first. */
    private Sample sampleBefore(long elapsedNanos) {
        for (int i = samples.size() - 2; i >= 0; i--) {
            if (samples.get(i).elapsedNanos() <= elapsedNanos) {
                return samples.get(i);
            }
        }
        return samples.get(0);
    }

    List<Sample> samples() {
        lock.lock();
        try {
            return List.copyOf(samples);
        } finally {
            lock.unlock();
        }
    }

    Histogram endToEndMicros() {
        lock.lock();
        try {
            return endToEndMicros.copy();
        } finally {
            lock.unlock();
        }
    }

    Histogram queueWaitMicros() {
        lock.lock();
        try {
            return queueWaitMicros.copy();
        } finally {
            lock.unlock();
        }
    }
}
