package dev.bulwark.internal.stats;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * One timer of a bulkhead's statistics: an exact count of events, and the durations of those that were timed (all of
 * them, or a sample chosen by a {@link TimingSampler}). Read when meters are scraped, never on the call path. The
 * total time is the sampled mean times the exact count (exact when every event was timed). Max and percentiles are
 * those of the timed events <b>over a recent window</b> ({@link TimeWindow}: they decay, like a Micrometer timer's),
 * percentiles from a {@link WindowedHistogram} (within 1.6 % of the exact ones); counts and totals are cumulative.
 *
 * <p>Thread-safe and lock-free: striped counters ({@link LongAdder}) and the histogram's atomics. A reader may see
 * an event counted and not yet timed (or the reverse); the estimates shift by at most that one event.
 */
public final class TimerStatistics {

    private final LongAdder count = new LongAdder();
    private final LongAdder timedCount = new LongAdder();
    private final LongAdder timedTotalNanos = new LongAdder();
    /** {@code null} when only the max is kept. */
    private final WindowedHistogram histogram;
    /** {@code null} when {@link #histogram} keeps the max. */
    private final WindowedMax max;

    private TimerStatistics(WindowedHistogram histogram, WindowedMax max) {
        this.histogram = histogram;
        this.max = max;
    }

    /**
     * Returns empty statistics with a windowed max and windowed percentiles.
     *
     * @param clock a monotonic clock in nanoseconds, read only when the statistics are read
     * @param expiry the window's length
     * @param bufferLength how many slices the window is cut into
     * @return new statistics
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public static TimerStatistics withPercentiles(LongSupplier clock, Duration expiry, int bufferLength) {
        return new TimerStatistics(new WindowedHistogram(clock, expiry, bufferLength), null);
    }

    /**
     * Returns empty statistics with a windowed max and no percentiles (a few longs instead of histograms).
     *
     * @param clock a monotonic clock in nanoseconds, read only when the statistics are read
     * @param expiry the window's length
     * @param bufferLength how many slices the window is cut into
     * @return new statistics
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public static TimerStatistics maxOnly(LongSupplier clock, Duration expiry, int bufferLength) {
        return new TimerStatistics(null, new WindowedMax(clock, expiry, bufferLength));
    }

    private void recordDuration(long value) {
        if (histogram != null) {
            histogram.record(value);
        } else {
            max.record(value);
        }
    }

    /**
     * Counts an event and records how long it took.
     *
     * @param nanos its duration; negative counts as 0
     */
    public void recordTimed(long nanos) {
        long value = Math.max(0L, nanos);
        recordDuration(value);
        timedTotalNanos.add(value);
        timedCount.increment();
        count.increment();
    }

    /** Counts an event that was not timed (left out of the sample). */
    public void recordUntimed() {
        count.increment();
    }

    /**
     * Records the duration of a timed event without counting the event: for owners that keep the exact count
     * elsewhere (derived from counts they keep anyway) and read it through {@link #totalNanos(long)}. Then
     * {@link #count()} stays 0 for these events, and {@link #timedCount()} counts them.
     *
     * @param nanos its duration; negative counts as 0
     */
    public void recordSample(long nanos) {
        long value = Math.max(0L, nanos);
        recordDuration(value);
        timedTotalNanos.add(value);
        timedCount.increment();
    }

    /**
     * Returns the exact number of events.
     *
     * @return the count
     */
    public long count() {
        return count.sum();
    }

    /**
     * Returns how many of the events were timed.
     *
     * @return the sample size
     */
    public long timedCount() {
        return timedCount.sum();
    }

    /**
     * Returns the total time of all events in nanoseconds: exact when all were timed, else the sampled mean times the
     * exact count.
     *
     * @return the total, 0 when nothing was timed
     */
    public double totalNanos() {
        long timed = timedCount.sum();
        long total = timedTotalNanos.sum();
        long all = count.sum();
        if (timed == 0) {
            return 0.0;
        }
        if (timed >= all) {
            return total;
        }
        return (double) total / timed * all;
    }

    /**
     * Returns the total time of {@code events} events in nanoseconds, estimated from the timed ones: exact when
     * every one of them was timed, else the sampled mean times {@code events}.
     *
     * @param events the exact number of events, kept by the caller
     * @return the total, 0 when nothing was timed
     */
    public double totalNanos(long events) {
        long timed = timedCount.sum();
        long total = timedTotalNanos.sum();
        if (timed == 0) {
            return 0.0;
        }
        if (timed >= events) {
            return total;
        }
        return (double) total / timed * events;
    }

    /**
     * Returns the sum of the timed durations, in nanoseconds, exactly.
     *
     * @return the sum
     */
    public long timedTotalNanos() {
        return timedTotalNanos.sum();
    }

    /**
     * Returns the mean duration in nanoseconds.
     *
     * @return the mean of the timed events, 0 when none
     */
    public double meanNanos() {
        long timed = timedCount.sum();
        return timed == 0 ? 0.0 : (double) timedTotalNanos.sum() / timed;
    }

    /**
     * Returns the longest duration timed within the window, exactly.
     *
     * @return the max in nanoseconds, 0 when none in the window
     */
    public long maxNanos() {
        return histogram != null ? histogram.max() : max.max();
    }

    /**
     * Returns a percentile of the durations timed within the window.
     *
     * @param phi the percentile as a fraction, 0 to 1
     * @return the value in nanoseconds (within 1.6 % of the exact percentile of the timed events in the window)
     * @throws IllegalArgumentException when {@code phi} is outside 0..1
     * @throws IllegalStateException when these statistics keep the max only
     */
    public long percentileNanos(double phi) {
        if (histogram == null) {
            throw new IllegalStateException("these statistics keep no percentiles");
        }
        return histogram.valueAtPercentile(phi);
    }
}
