package dev.bulwark.cli.internal.sim;

import java.util.List;

/**
 * The outcomes of a run split by one class of call: by priority (from {@code --priority-mix}) or by weight (from
 * {@code --weights}). Immutable.
 *
 * @param dimension what the rows are split by: {@code priority} or {@code weight}
 * @param rows one row per class of the mix, in the mix's order
 */
public record ClassBreakdown(String dimension, List<Row> rows) {

    /**
     * Copies the rows.
     */
    public ClassBreakdown {
        rows = List.copyOf(rows);
    }

    /**
     * The outcomes of one class.
     *
     * @param label the class as the option names it, for example {@code critical} or {@code 4}
     * @param counts how many calls of the class arrived ({@link OutcomeCounts#arrivals()}: offered) and how each
     *     ended
     * @param admitted how many of them the bulkhead let through (a call admitted twice, by a retry after a timed-out
     *     attempt, counts once)
     * @param queueWait how long the admitted ones waited for their slots (the wait of the attempt that was admitted)
     * @param endToEnd how long the completed ones took, from their arrival to their end (queue wait, retries and
     *     the downstream's time together)
     */
    public record Row(String label, OutcomeCounts counts, long admitted, LatencySummary queueWait,
                      LatencySummary endToEnd) {

        /**
         * Returns the share of the class's calls that completed.
         *
         * @return between 0 and 1; {@code NaN} when none arrived
         */
        public double successShare() {
            return counts.arrivals() == 0 ? Double.NaN
                    : (double) counts.count(CallOutcome.COMPLETED) / counts.arrivals();
        }
    }
}
