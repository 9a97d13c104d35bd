package dev.bulwark.internal.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * One timer of a bulkhead's statistics: an exact count of events, and the durations of those that were timed (all of
 * them, or a sample chosen by a {@link TimingSampler}). Read when meters are scraped, never on the call path. The
 * total time is the sampled mean times the exact count (exact when every event was timed); max and percentiles are
 * those of the timed events, percentiles from a {@link LogLinearHistogram} (within 1.6 % of the exact ones).
 *
 * <p>Thread-safe and lock-free: striped counters ({@link LongAdder}) and the histogram's atomics. A reader may see
 * an event counted and not yet timed (or the reverse); the estimates shift by at most that one event.
 */
public final class TimerStatistics {

    private final LongAdder count = new LongAdder();
    private final LongAdder timedCount = new LongAdder();
    private final LongAdder timedTotalNanos = new LongAdder();
    private final LogLinearHistogram histogram = new LogLinearHistogram();

    private TimerStatistics() {
    }

    /**
     * Returns empty statistics whose untimed events were left out of a sample.
     *
     * @return new statistics
     */
    public static TimerStatistics sampled() {
        return new TimerStatistics();
    }

    /**
     * Counts an event and records how long it took.
     *
     * @param nanos its duration; negative counts as 0
     */
    public void recordTimed(long nanos) {
        long value = Math.max(0L, nanos);
        histogram.record(value);
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
        histogram.record(value);
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
     * Returns the longest timed duration, exactly.
     *
     * @return the max in nanoseconds, 0 when none
     */
    public long maxNanos() {
        return histogram.max();
    }

    /**
     * Returns a percentile of the timed durations.
     *
     * @param phi the percentile as a fraction, 0 to 1
     * @return the value in nanoseconds (within 1.6 % of the exact percentile of the timed events)
     * @throws IllegalArgumentException when {@code phi} is outside 0..1
     */
    public long percentileNanos(double phi) {
        return histogram.valueAtPercentile(phi, 0L);
    }
}
