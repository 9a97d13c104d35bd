package dev.bulwark.cli.internal.sim;

/**
 * One point of a run's time series. Counts are cumulative since the start; rates are derived by the reports
 * from two neighbouring samples. Immutable.
 *
 * @param elapsedNanos time since the run started
 * @param arrivals calls that arrived so far
 * @param completed calls the downstream served so far
 * @param rejected calls the bulkhead refused so far (either reason)
 * @param timedOut calls a timeout gave up on so far
 * @param cancelled calls cancelled at the end so far
 * @param inFlight calls in the downstream at this moment
 * @param queued calls waiting in the bulkhead's queue at this moment
 * @param limit the bulkhead's concurrency limit at this moment (it moves when adaptive), 0 without a bulkhead
 */
public record Sample(long elapsedNanos, long arrivals, long completed, long rejected, long timedOut,
                     long cancelled, int inFlight, int queued, int limit) {

    /**
     * Returns the elapsed time in seconds.
     *
     * @return seconds since the run started
     */
    public double elapsedSeconds() {
        return elapsedNanos / 1e9;
    }
}
