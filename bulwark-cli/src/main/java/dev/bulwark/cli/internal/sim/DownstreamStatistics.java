package dev.bulwark.cli.internal.sim;

import org.HdrHistogram.Histogram;

/**
 * What the simulated downstream saw during a run. Immutable once made (the histogram is not shared).
 *
 * @param peakInFlight the most calls in flight at once
 * @param inFlightIntegral the time integral of the calls in flight, in call-nanoseconds
 * @param completed calls whose work was done
 * @param completedNanos the total time completed calls spent in the downstream
 * @param aborted calls still in flight when the run ended
 * @param residenceMicros the time each completed call spent in the downstream, in microseconds
 * @param latestCompletionNanos the latest the scheduler woke up to complete calls, after the time it planned
 */
public record DownstreamStatistics(int peakInFlight, double inFlightIntegral, long completed, long completedNanos,
                                   long aborted, Histogram residenceMicros, long latestCompletionNanos) {
}
