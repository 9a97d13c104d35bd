package dev.bulwark.cli.internal.sim;

/**
 * How late the simulator itself was: a simulation in real time is only as punctual as the machine running it.
 * On a busy machine the arrival thread makes calls late (they still count from their due time, so the delay shows
 * in their latency) and the downstream's scheduler completes calls late. Immutable; milliseconds.
 *
 * @param arrivalP99 the 99th percentile of how late open-loop arrivals were made, {@code NaN} for closed loops
 * @param arrivalMax the latest an arrival was made, {@code NaN} for closed loops
 * @param completionMax the latest the downstream completed a call after its work was done
 */
public record SchedulingLag(double arrivalP99, double arrivalMax, double completionMax) {

    /** Lag up to this is timer resolution and ordinary scheduling: it does not disturb millisecond latencies. */
    public static final double PUNCTUAL_MILLIS = 10.0;

    /**
     * Returns whether the run kept its schedule closely enough for its latencies to be trusted to a few
     * milliseconds.
     *
     * @return {@code true} when no arrival or completion was more than {@link #PUNCTUAL_MILLIS} late
     */
    public boolean punctual() {
        return !(arrivalMax > PUNCTUAL_MILLIS) && !(completionMax > PUNCTUAL_MILLIS);
    }

    /**
     * Returns the worst lag of either kind.
     *
     * @return milliseconds
     */
    public double worst() {
        return Math.max(Double.isNaN(arrivalMax) ? 0 : arrivalMax, completionMax);
    }
}
