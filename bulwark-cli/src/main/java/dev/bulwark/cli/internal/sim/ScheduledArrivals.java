package dev.bulwark.cli.internal.sim;

import java.util.SplittableRandom;

/**
 * The arrival times of a {@link LoadSchedule}, drawn by thinning: candidates arrive as a Poisson process at the
 * schedule's peak rate, and each is kept with probability (the rate at its time) / (the peak rate), in the lane
 * {@link LoadSchedule#laneAt} gives it. The kept arrivals form a Poisson process whose rate follows the schedule, and
 * a seed fixes them. Shared by real and virtual time, so a seed gives the same arrivals in both. With an
 * {@link ArrivalTrace} nothing is drawn: the trace's arrivals come in its order, each in its lane, up to the window's
 * end (the service times are still drawn by the caller, from the seed).
 *
 * <p>Not thread-safe: one instance per run, used by the thread that makes the arrivals.
 */
final class ScheduledArrivals {

    private final LoadSchedule schedule;
    private final ArrivalTrace trace;
    private final double meanGapNanos;
    private final SplittableRandom gaps;
    private final SplittableRandom thinning;
    private final long windowNanos;
    private double offset;
    private int laneIndex;
    /** The next arrival of {@link #trace} to replay. */
    private int replayed;

    /**
     * @param schedule the schedule
     * @param trace the arrivals to replay instead of drawing them, or {@code null} to draw them
     * @param gaps the generator of the candidates' gaps
     * @param thinning the generator that keeps or drops candidates and picks their lane
     * @param windowNanos how long arrivals come, from the start of the run
     */
    ScheduledArrivals(LoadSchedule schedule, ArrivalTrace trace, SplittableRandom gaps, SplittableRandom thinning,
                      long windowNanos) {
        this.schedule = schedule;
        this.trace = trace;
        this.meanGapNanos = 1e9 / schedule.peakPerSecond();
        this.gaps = gaps;
        this.thinning = thinning;
        this.windowNanos = windowNanos;
    }

    /**
     * Moves to the next kept arrival.
     *
     * @return its time since the start of the run, or -1 once the window is over
     */
    long next() {
        if (trace != null) {
            if (replayed == trace.size() || trace.offsetNanos(replayed) >= windowNanos) {
                return -1;
            }
            laneIndex = trace.lane(replayed);
            return trace.offsetNanos(replayed++);
        }
        for (;;) {
            offset += meanGapNanos * gaps.nextExponential();
            if (offset >= windowNanos) {
                return -1;
            }
            long due = (long) offset;
            laneIndex = schedule.laneAt(due, thinning.nextDouble());
            if (laneIndex >= 0) {
                return due;
            }
        }
    }

    /**
     * Returns the priority of the arrival {@link #next} moved to.
     *
     * @return its lane's priority, or {@code null} when the schedule has no priorities
     */
    dev.bulwark.Priority priority() {
        return schedule.lanes().get(laneIndex).priority();
    }

    /**
     * Returns the index in the schedule of the lane of the arrival {@link #next} moved to.
     *
     * @return at least 0
     */
    int lane() {
        return laneIndex;
    }
}
