package dev.bulwark.cli.internal.sim;

/**
 * How many calls arrived and how each ended. Immutable.
 */
public final class OutcomeCounts {

    private final long arrivals;
    private final long[] byOutcome;

    OutcomeCounts(long arrivals, long[] byOutcome) {
        this.arrivals = arrivals;
        this.byOutcome = byOutcome.clone();
    }

    /**
     * Returns the number of calls that arrived.
     *
     * @return at least 0
     */
    public long arrivals() {
        return arrivals;
    }

    /**
     * Returns how many calls ended with {@code outcome}.
     *
     * @param outcome the outcome
     * @return at least 0
     */
    public long count(CallOutcome outcome) {
        return byOutcome[outcome.ordinal()];
    }

    /**
     * Returns how many calls ended, whatever the outcome.
     *
     * @return the sum over all outcomes
     */
    public long ended() {
        long sum = 0;
        for (long count : byOutcome) {
            sum += count;
        }
        return sum;
    }

    /**
     * Returns how many calls the bulkhead refused, for either reason.
     *
     * @return queue-full plus wait-timeout rejections
     */
    public long rejected() {
        return count(CallOutcome.REJECTED_QUEUE_FULL) + count(CallOutcome.REJECTED_WAIT_TIMEOUT)
                + count(CallOutcome.REJECTED_EVICTED);
    }

    /**
     * Returns the share of arrivals that ended with {@code outcome}.
     *
     * @param outcome the outcome
     * @return from 0 to 1; 0 when nothing arrived
     */
    public double share(CallOutcome outcome) {
        return arrivals == 0 ? 0 : (double) count(outcome) / arrivals;
    }

    /**
     * Returns the share of arrivals that were not served: rejected, timed out, cancelled or failed.
     *
     * @return from 0 to 1; 0 when nothing arrived
     */
    public double unservedShare() {
        return arrivals == 0 ? 0 : (double) (arrivals - count(CallOutcome.COMPLETED)) / arrivals;
    }
}
