package dev.bulwark.cli.internal.sim;

/**
 * Little's law applied to the downstream: in a steady state, the mean number of calls in flight {@code L}
 * equals the throughput {@code X} times the mean time a call spends there {@code W}. Here {@code L} is the exact
 * time average of the calls in flight over the whole run, and {@code X} and {@code W} count only calls that
 * completed. When every call that entered also left, the two sides agree; when calls piled up and were cut off
 * at the end, {@code L} is far larger than {@code X W}, which is the signature of an overloaded, unstable
 * downstream. Immutable.
 *
 * @param meanInFlight {@code L}: the time-averaged number of calls in the downstream
 * @param throughputPerSecond {@code X}: calls completed by the downstream per second of the run
 * @param meanTimeInDownstreamMillis {@code W}: the mean time a completed call spent in the downstream
 */
public record LittlesLaw(double meanInFlight, double throughputPerSecond, double meanTimeInDownstreamMillis) {

    /** How far apart the two sides may be for the law to count as holding. */
    public static final double TOLERANCE = 0.05;

    /**
     * Returns {@code X W}.
     *
     * @return throughput times mean time in the downstream, in calls
     */
    public double product() {
        double product = throughputPerSecond * meanTimeInDownstreamMillis / 1000.0;
        return Double.isNaN(product) ? 0 : product;
    }

    /**
     * Returns how far {@code X W} is from {@code L}, relative to {@code L}.
     *
     * @return {@code (L - X W) / L}; 0 when nothing was in flight
     */
    public double relativeGap() {
        return meanInFlight <= 0 ? 0 : (meanInFlight - product()) / meanInFlight;
    }

    /**
     * Returns whether both sides agree within {@link #TOLERANCE}.
     *
     * @return {@code true} when the downstream was in a steady state
     */
    public boolean holds() {
        return Math.abs(relativeGap()) <= TOLERANCE;
    }
}
