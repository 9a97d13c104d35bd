package dev.bulwark.redis.internal.lease;

/**
 * One fleet simulated by {@link FleetSim}: how many instances, the fleet's limit, how demand is spread over them
 * and how it changes. Times are in renewal periods (the period is 1), so a run's figures read in periods.
 *
 * @param name the row's name in the report
 * @param instances the instances at the start
 * @param limit the fleet's limit
 * @param zipf the Zipf exponent of the demand across instances: the instance of rank {@code r} gets a call rate
 *     proportional to {@code 1 / r^zipf} (0: every instance alike)
 * @param overload the total offered load (call rate times mean service time) divided by the limit
 * @param serviceTime the mean service time (exponential)
 * @param maxWait the longest a call waits in a queue before it is refused
 * @param shift what happens at {@code changeAt}
 * @param changeAt when the demand shifts or instances die and join
 * @param duration the run's length; measurements start after {@code warmUp}
 * @param warmUp the periods not measured at the start
 * @param rtt the round trip to the store; the script runs half-way
 * @param seed the seed of every random draw
 * @param preShrink whether instances lower their block to their demand before reporting, as {@link BlockRenewer}
 *     does (false: the code before, simulated for comparison)
 * @param demand what instances report as their demand
 */
record FleetScenario(String name, int instances, int limit, double zipf, double overload, double serviceTime,
                     double maxWait, Shift shift, double changeAt, double duration, double warmUp, double rtt,
                     long seed, boolean preShrink, Demand demand) {

    /** What an instance reports as its demand. */
    enum Demand {
        /** Its calls executing and queued at the renewal: what {@link BlockRenewer} reports. */
        SNAPSHOT,
        /**
         * Simulated only: the load offered since its last renewal (calls admitted or refused × their mean execution
         * time ÷ the time), rounded, at least its calls executing. Queued calls count only once they are admitted or
         * refused, so a queue that never times out (a closed loop) is not seen.
         */
        OFFERED,
        /**
         * Simulated only: {@link #OFFERED}, but at least the calls executing and queued when calls were queued at
         * this renewal and at the last one.
         */
        OFFERED_PERSISTENT_QUEUE,
        /**
         * Not a protocol, a bound: every instance runs its max-min fair share of the offered loads (rate × mean
         * service time, rounded), known exactly and at once, whatever it was granted; the limit divided into whole
         * slots per instance at best. The invariant checks do not apply.
         */
        FAIR_SHARES
    }

    /** What changes at {@code changeAt}. */
    enum Shift {
        /** Nothing: a steady run. */
        NONE,
        /** The hot set moves: every instance takes the rank half the fleet away from its own. */
        HOT_SET_MOVES,
        /**
         * A tenth of the instances die (their calls with them, their records left to expire) and as many new ones
         * join with the dead ones' ranks.
         */
        CHURN,
        /** Every instance's demand doubles: the fair level falls, so the busiest instances must shrink. */
        SURGE
    }

    /** A scenario with the defaults the report uses: a period of 1, calls of 0.2, waits up to 0.5, RTT 0.001. */
    static FleetScenario of(String name, int instances, int limit, double zipf, double overload, Shift shift,
                            long seed) {
        return new FleetScenario(name, instances, limit, zipf, overload, 0.2, 0.5, shift, 10, 16, 5, 0.001, seed,
                true, Demand.SNAPSHOT);
    }

    /** The same scenario with another overload. */
    FleetScenario withOverload(double newOverload) {
        return new FleetScenario(name, instances, limit, zipf, newOverload, serviceTime, maxWait, shift, changeAt,
                duration, warmUp, rtt, seed, preShrink, demand);
    }

    /** The same scenario as the code before the pre-shrink ran it: the record keeps a shrinking block a period. */
    FleetScenario withoutPreShrink() {
        return new FleetScenario(name + " −pre-shrink", instances, limit, zipf, overload, serviceTime, maxWait,
                shift, changeAt, duration, warmUp, rtt, seed, false, demand);
    }

    /** The same scenario with another demand estimate, named in the row. */
    FleetScenario withDemand(Demand estimate, String suffix) {
        return new FleetScenario(name + " " + suffix, instances, limit, zipf, overload, serviceTime, maxWait, shift,
                changeAt, duration, warmUp, rtt, seed, preShrink, estimate);
    }
}
