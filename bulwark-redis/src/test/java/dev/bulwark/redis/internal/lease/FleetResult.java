package dev.bulwark.redis.internal.lease;

/**
 * What one {@link FleetSim} run measured, after its warm-up. Times are in renewal periods.
 *
 * @param scenario the scenario run
 * @param mode the mode simulated
 * @param utilization the calls in flight over the limit, averaged over the measured periods outside the three after
 *     the change (the change's own dip is {@code minUtilization})
 * @param minUtilization the lowest utilization of any one measured period, the change's included
 * @param p50Wait the median queue wait of the calls admitted (0 for those admitted at once)
 * @param p99Wait the 99th percentile of that wait
 * @param timedOut the share of the calls that arrived that were refused after waiting {@code maxWait}
 * @param storeOpsPerPeriod the scripts run in the store per period (0 in the exact mode, which the model does not
 *     count: there it is two per call)
 * @param meanInstances the live instances, averaged over the measured time
 * @param convergence the periods after the change until the blocks were as close to the new fair shares as they
 *     were to the old ones before it, plus 5% of the limit; {@code NaN} when nothing changed or in the exact mode,
 *     infinite when never
 * @param maxInFlight the most calls in flight at once, fleet-wide, by a counter that only admissions and ends move
 * @param maxRecorded the largest sum of recorded blocks the store ever held
 * @param enforcedAboveRecorded how many times an instance applied a block above its record in the store
 * @param calls the calls that arrived while measured
 * @param divisionsPerPeriod the renewals per period that recomputed the division from every record (0 in the exact
 *     mode)
 */
record FleetResult(FleetScenario scenario, FleetSim.Mode mode, double utilization, double minUtilization,
                   double p50Wait, double p99Wait, double timedOut, double storeOpsPerPeriod, double meanInstances,
                   double convergence, int maxInFlight, long maxRecorded, long enforcedAboveRecorded, long calls,
                   double divisionsPerPeriod) {

    /** Store operations per instance per period: at most about 1 by design. */
    double opsPerInstancePeriod() {
        return storeOpsPerPeriod / meanInstances;
    }
}
