package dev.bulwark.cli.internal.sim;

import java.util.Objects;

/**
 * How calls arrive. Immutable.
 *
 * <ul>
 *   <li>{@link OpenLoop}: calls arrive on their own schedule (a Poisson process), whatever happens to earlier
 *       calls, as requests from many independent users do. Overload therefore piles up.</li>
 *   <li>{@link ClosedLoop}: a fixed number of clients each make one call at a time and think between calls,
 *       as a worker pool or a batch job does. Overload slows the clients down instead.</li>
 * </ul>
 */
public sealed interface ArrivalModel permits ArrivalModel.OpenLoop, ArrivalModel.ClosedLoop {

    /**
     * Describes the model for reports.
     *
     * @return for example {@code Poisson arrivals at 2000/s}
     */
    String describe();

    /**
     * Open-loop Poisson arrivals: the times between calls are exponentially distributed with mean
     * {@code 1 / rate}; or, with a {@link LoadSchedule}, a Poisson process whose rate follows the schedule; or, with
     * a schedule and an {@link ArrivalTrace}, the trace's arrivals replayed in the schedule's lanes (nothing drawn).
     *
     * @param rate the mean arrival rate (with a schedule, its mean over the run)
     * @param schedule the rate over time, or {@code null} for a steady {@code rate}
     * @param trace the arrivals to replay, or {@code null} to draw them; only with a schedule
     */
    record OpenLoop(Rate rate, LoadSchedule schedule, ArrivalTrace trace) implements ArrivalModel {

        /**
         * Checks the rate, and that a trace comes with a schedule that has each of its lanes.
         *
         * @throws NullPointerException when {@code rate} is {@code null}
         * @throws IllegalArgumentException when a trace is given without a schedule, or names a lane the schedule
         *     does not have
         */
        public OpenLoop {
            Objects.requireNonNull(rate, "rate");
            if (trace != null && schedule == null) {
                throw new IllegalArgumentException("trace needs a schedule, whose lanes its arrivals are in");
            }
            if (trace != null && trace.highestLane() >= schedule.lanes().size()) {
                throw new IllegalArgumentException("trace has arrivals in lane " + trace.highestLane()
                        + " but the schedule has " + schedule.lanes().size() + " lane(s)");
            }
        }

        /**
         * Open-loop arrivals drawn at a steady rate or on a schedule.
         *
         * @param rate the mean arrival rate (with a schedule, its mean over the run)
         * @param schedule the rate over time, or {@code null} for a steady {@code rate}
         */
        public OpenLoop(Rate rate, LoadSchedule schedule) {
            this(rate, schedule, null);
        }

        /**
         * Steady Poisson arrivals.
         *
         * @param rate the arrival rate
         */
        public OpenLoop(Rate rate) {
            this(rate, null, null);
        }

        /**
         * Arrivals that follow a schedule, at its mean rate on average.
         *
         * @param schedule the rate over time
         */
        public OpenLoop(LoadSchedule schedule) {
            this(schedule.meanRate(), schedule, null);
        }

        /**
         * Recorded arrivals replayed in a schedule's lanes: the rate is the trace's over the schedule's length.
         *
         * @param schedule the lanes (their priorities) and the run's length
         * @param trace the arrivals
         * @throws IllegalArgumentException when the trace is empty or names a lane the schedule does not have
         */
        public OpenLoop(LoadSchedule schedule, ArrivalTrace trace) {
            this(new Rate(trace.size() / (schedule.length().toNanos() / 1e9)), schedule, trace);
        }

        @Override
        public String describe() {
            return schedule == null ? "Poisson arrivals at " + rate
                    : trace != null ? trace.size() + " recorded arrivals in the lanes of the schedule "
                            + schedule.describe()
                    : "Poisson arrivals on the schedule " + schedule.describe();
        }
    }

    /**
     * Closed-loop clients: each waits {@code thinkTime}, makes a call, waits for its outcome (whatever it is),
     * and starts again.
     *
     * @param clients the number of clients, at least 1
     * @param thinkTime the pause between a call's outcome and the client's next call
     */
    record ClosedLoop(int clients, Distribution thinkTime) implements ArrivalModel {

        /**
         * Checks the parameters.
         *
         * @throws IllegalArgumentException when {@code clients} is less than 1
         * @throws NullPointerException when {@code thinkTime} is {@code null}
         */
        public ClosedLoop {
            if (clients < 1) {
                throw new IllegalArgumentException("clients must be at least 1 but was " + clients);
            }
            Objects.requireNonNull(thinkTime, "thinkTime");
        }

        @Override
        public String describe() {
            return clients + " closed-loop clients, think time " + thinkTime.spec();
        }
    }
}
