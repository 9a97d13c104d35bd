package dev.bulwark.cli.internal.sim;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of a set of latencies. Immutable. All values are in milliseconds, {@code NaN} when
 * {@link #count()} is 0.
 *
 * @param count how many latencies
 * @param mean their mean
 * @param p50 the median
 * @param p90 the 90th percentile
 * @param p99 the 99th percentile
 * @param p999 the 99.9th percentile
 * @param max the largest
 */
public record LatencySummary(long count, double mean, double p50, double p90, double p99, double p999,
                             double max) {

    /** The summary of no latencies at all. */
    public static final LatencySummary EMPTY =
            new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /**
     * Summarizes a histogram of microseconds (HdrHistogram keeps three significant digits).
     *
     * @param micros the histogram
     * @return the summary
     */
    public static LatencySummary ofMicros(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return EMPTY;
        }
        return new LatencySummary(micros.getTotalCount(), micros.getMean() / 1000.0,
                micros.getValueAtPercentile(50.0) / 1000.0, micros.getValueAtPercentile(90.0) / 1000.0,
                micros.getValueAtPercentile(99.0) / 1000.0, micros.getValueAtPercentile(99.9) / 1000.0,
                micros.getMaxValue() / 1000.0);
    }
}
