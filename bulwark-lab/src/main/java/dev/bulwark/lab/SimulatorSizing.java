package dev.bulwark.lab;

import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.ProgressListener;
import dev.bulwark.cli.internal.sim.Rate;
import dev.bulwark.cli.internal.sim.Simulation;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SweepTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The fixed limit sized by the simulator, as {@code bulwark sweep} sizes one: the {@link ServiceModel} fitted to the
 * lab's probe, open-loop Poisson arrivals at the rate to size for, one run in virtual time (seed 42) per limit from 1
 * to the pool's size, each with the fixed guard's queue ({@code 4 x limit + 20}) and maximum wait, judged by
 * {@link SweepTargets}: the end-to-end p99 of completed calls within half the client's timeout (less the model's
 * overhead outside the dependency's path), and a share of unserved calls no more than one percentage point above the
 * fewest that any limit meeting that p99 leaves unserved. The chosen limit is the smallest that meets both, as
 * {@code sweep} names the smallest setting that meets its targets: the smallest limit that serves about as much as
 * any limit can without its p99 passing the target. Immutable.
 *
 * @param limit the chosen limit
 * @param littleLimit Little's law's figure from the same measurements, {@code ceil(capacity x workMillisAlone)}, for
 *     comparison
 * @param ratePerSecond the arrival rate it was sized for
 * @param p99TargetMillis the p99 target of completed calls, in the simulator's time (without the overhead)
 * @param maxUnservedShare the unserved-share target derived from the runs, 0 to 1
 * @param rows one per limit tried, smallest first
 */
record SimulatorSizing(int limit, int littleLimit, double ratePerSecond, double p99TargetMillis,
        double maxUnservedShare, List<Row> rows) {

    /** Virtual time of each sizing run. */
    static final Duration RUN = Duration.ofSeconds(20);

    /**
     * One limit's run.
     *
     * @param limit the limit
     * @param queue its queue
     * @param goodputPerSecond completed calls per second
     * @param unservedShare the share of calls not served (refused or cancelled), 0 to 1
     * @param p99Millis end-to-end p99 of completed calls, in the simulator's time
     * @param meets whether it meets both targets
     */
    record Row(int limit, int queue, double goodputPerSecond, double unservedShare, double p99Millis,
            boolean meets) {
    }

    /**
     * Sizes the fixed limit.
     *
     * @param model the fitted downstream
     * @param ratePerSecond the arrival rate to size for (the lab: the surge's, twice the measured capacity)
     * @param maxLimit the highest limit to try (the pool's size)
     * @param clientTimeout when the client gives up
     * @param maxWait the fixed guard's maximum wait
     * @param littleLimit Little's law's limit, carried for the report
     * @return the sizing; when no limit meets the p99 target, the limit is 1 and every row says no
     */
    static SimulatorSizing size(ServiceModel model, double ratePerSecond, int maxLimit, Duration clientTimeout,
            Duration maxWait, int littleLimit) {
        double p99Target = Math.max(1, clientTimeout.toMillis() / 2.0 - model.overheadMillis());
        SweepTargets p99Only = new SweepTargets(ServiceModel.nanos(p99Target), null);
        List<SimulationResult> results = new ArrayList<>();
        double fewestUnserved = 1;
        for (int limit = 1; limit <= maxLimit; limit++) {
            SimulationResult result = new Simulation(model.settings()
                    .arrivals(new ArrivalModel.OpenLoop(new Rate(ratePerSecond))).duration(RUN)
                    .drain(Duration.ofSeconds(2))
                    .bulkhead(SimPredictor.settings(Scenario.OVERLOAD, GuardMode.FIXED, limit, model.capacity(),
                            maxWait)).build())
                    .run(ProgressListener.none());
            results.add(result);
            if (p99Only.metBy(result)) {
                fewestUnserved = Math.min(fewestUnserved, result.counts().unservedShare());
            }
        }
        double maxUnserved = Math.min(1, fewestUnserved + 0.01);
        SweepTargets targets = new SweepTargets(ServiceModel.nanos(p99Target), maxUnserved);
        List<Row> rows = new ArrayList<>();
        int chosen = -1;
        for (SimulationResult r : results) {
            boolean meets = targets.metBy(r);
            int limit = r.settings().bulkhead().orElseThrow().limit();
            rows.add(new Row(limit, r.settings().bulkhead().orElseThrow().queue(),
                    Math.round(r.goodput() * 10) / 10.0, Math.round(r.counts().unservedShare() * 1000) / 1000.0,
                    Math.round(r.endToEnd().p99() * 10) / 10.0, meets));
            if (meets && chosen < 0) {
                chosen = limit;
            }
        }
        return new SimulatorSizing(Math.max(1, chosen), littleLimit, Math.round(ratePerSecond * 10) / 10.0,
                Math.round(p99Target * 10) / 10.0, Math.round(maxUnserved * 1000) / 1000.0, List.copyOf(rows));
    }

    /**
     * The sweep's rows as text, one line each.
     *
     * @return a small table
     */
    String table() {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%6s %6s %9s %9s %8s %6s%n", "limit",
                "queue", "served/s", "unserved", "p99 ms", "meets"));
        for (Row r : rows) {
            out.append(String.format(Locale.ROOT, "%6d %6d %9.0f %8.1f%% %8.1f %6s%n", r.limit(), r.queue(),
                    r.goodputPerSecond(), 100 * r.unservedShare(), r.p99Millis(), r.meets() ? "yes" : "no"));
        }
        return out.toString();
    }
}
