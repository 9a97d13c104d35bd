package dev.bulwark.internal.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * One timer of a bulkhead's statistics: an exact count of events, and the durations of those that were timed. Read
 * when meters are scraped, never on the call path. An event that was counted but not timed means one of two things,
 * fixed at construction:
 * <ul>
 *   <li>{@link #sampled()}: it was left out of a sample (see {@link TimingSampler}). The total time is then the
 *       sampled mean times the exact count; max and percentiles are those of the sample.</li>
 *   <li>{@link #zeroWhenUntimed()}: it took no time (a call that found a free slot waited 0, and the bulkhead read no
 *       clock to learn it). Then count, total, mean and max are exact.</li>
 * </ul>
 * Percentiles come from a {@link LogLinearHistogram}: within 1.6 % of the exact ones of the timed events.
 *
 * <p>Thread-safe and lock-free: striped counters ({@link LongAdder}) and the histogram's atomics. A reader may see
 * an event counted and not yet timed (or the reverse); the estimates shift by at most that one event.
 */
public final class TimerStatistics {

    private final LongAdder count = new LongAdder();
    private final LongAdder timedCount = new LongAdder();
    private final LongAdder timedTotalNanos = new LongAdder();
    private final LogLinearHistogram histogram = new LogLinearHistogram();
    private final boolean untimedAreZeros;

    private TimerStatistics(boolean untimedAreZeros) {
        this.untimedAreZeros = untimedAreZeros;
    }

    /**
     * Returns empty statistics whose untimed events were left out of a sample.
     *
     * @return new statistics
     */
    public static TimerStatistics sampled() {
        return new TimerStatistics(false);
    }

    /**
     * Returns empty statistics whose untimed events took no time.
     *
     * @return new statistics
     */
    public static TimerStatistics zeroWhenUntimed() {
        return new TimerStatistics(true);
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

    /** Counts an event that was not timed: left out of the sample, or known to have taken no time. */
    public void recordUntimed() {
        count.increment();
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
        if (untimedAreZeros || timed >= all) {
            return total;
        }
        return (double) total / timed * all;
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
        long timed = untimedAreZeros ? count.sum() : timedCount.sum();
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
     * @return the value in nanoseconds (within 1.6 % of the exact percentile of the timed events, zeros included)
     * @throws IllegalArgumentException when {@code phi} is outside 0..1
     */
    public long percentileNanos(double phi) {
        long zeros = untimedAreZeros ? count.sum() - timedCount.sum() : 0L;
        return histogram.valueAtPercentile(phi, zeros);
    }
}
