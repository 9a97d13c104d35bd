package dev.bulwark.cli.internal.sim;

import java.time.Duration;

/**
 * A run's state at one moment, for a progress display. Immutable.
 *
 * @param elapsed time since the run started
 * @param duration how long calls arrive
 * @param phase what the run is doing
 * @param arrivalsPerSecond arrivals over about the last second
 * @param inFlight calls in the downstream now
 * @param queued calls waiting in the bulkhead's queue now
 * @param rejectionsPerSecond refusals over about the last second
 * @param p99Millis the 99th percentile of end-to-end latency of the calls completed so far, or {@code NaN}
 *     before the first
 */
public record Progress(Duration elapsed, Duration duration, Phase phase, double arrivalsPerSecond, int inFlight,
                       int queued, double rejectionsPerSecond, double p99Millis) {

    /** What a run is doing. */
    public enum Phase {
        /** Calls are arriving. */
        RUNNING,
        /** Arrivals have stopped; calls still queued or in flight may finish. */
        DRAINING,
        /** Every call has ended. */
        DONE
    }
}
