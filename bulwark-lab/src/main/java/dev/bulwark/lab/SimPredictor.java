package dev.bulwark.lab;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Priority;
import dev.bulwark.QueueOrder;
import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.ArrivalTrace;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.LoadSchedule;
import dev.bulwark.cli.internal.sim.ProgressListener;
import dev.bulwark.cli.internal.sim.Simulation;
import dev.bulwark.cli.internal.sim.Slowdown;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The simulator's prediction of one run of the lab: the {@link ServiceModel} behind the guard's admission policy,
 * driven in virtual time by the run's own arrivals (each request's send time, replayed as an {@link ArrivalTrace}) or,
 * without them, by the run's schedule (one Poisson lane following the stages, seed 42), each call's figures split by
 * the stage it was due in, as the lab splits its requests. Replaying the lab's arrivals takes the draw out of the
 * comparison: two Poisson samples of a stage of a few seconds differ by several percent.
 *
 * <p>The lab's client sees a call's time in the dependency's path plus the overhead outside it, and gives up after its
 * timeout while the service goes on with the call. So every simulated call's latency gets the model's overhead added;
 * a completed call within the client's timeout succeeds, any later one counts as a client timeout (the simulated
 * downstream still does its work, as the real service does); a refusal keeps its own latency, capped at the timeout
 * (a refusal after the client left is a client timeout). Not thread-safe; each call to {@link #predict} is
 * independent.
 */
final class SimPredictor {

    /** A queue with no practical bound: Tomcat's 200 threads and its 8,192 connections hold far fewer. */
    static final int UNBOUNDED_QUEUE = 100_000;

    /** How long simulated calls may finish after the schedule ends: long enough for any backlog of a lab run. */
    private static final Duration DRAIN = Duration.ofSeconds(60);

    private SimPredictor() {
    }

    /**
     * The figures of one stage of a run.
     *
     * @param stage the stage's name
     * @param goodputPerSecond requests due in the stage that succeeded within the client's timeout, per second of it
     * @param p99Millis the 99th percentile latency of the stage's requests, every outcome (a client timeout counts as
     *     the timeout)
     * @param okP99Millis the 99th percentile of its successful requests only
     */
    record StageFigures(String stage, double goodputPerSecond, double p99Millis, double okP99Millis) {
    }

    /**
     * The simulator's bulkhead standing for a guard: the guard's admission policy on the loaded dependency's path.
     * {@code none} is HikariCP's pool on the database's path (its size, a queue without bound, its connection timeout
     * as the maximum wait), and on the remote's the remote's own worker pool: a queue without bound and without a
     * maximum wait, served in order by the fitted downstream's capacity (the service puts every request through, and
     * the remote's executor queues what its workers cannot take; a processor-sharing downstream alone would slow
     * every call at once instead of serving the earliest);
     * {@code fixed} and {@code selfTuning} are the lab's Bulwark bulkheads as {@link DependencyGuard} builds them;
     * {@code resilience4j} is a semaphore with the maximum wait and no bound on waiters; Spring's {@code BLOCK} waits
     * without bound and {@code REJECT} has no queue.
     *
     * @param scenario the experiment: which dependency's path the run loads
     * @param mode the guard
     * @param fixedLimit the fixed limit of the run
     * @param downstreamCapacity the fitted downstream's capacity ({@link ServiceModel#capacity()})
     * @param maxWait the guards' maximum wait
     * @return the settings
     */
    static BulkheadSettings settings(Scenario scenario, GuardMode mode, int fixedLimit, int downstreamCapacity,
            Duration maxWait) {
        int pool = LabApplication.POOL_SIZE;
        return switch (mode) {
            case NONE -> unguardedPath(scenario, downstreamCapacity);
            case FIXED -> new BulkheadSettings(fixedLimit, DependencyGuard.queueFor(fixedLimit), maxWait);
            case SELF_TUNING -> new BulkheadSettings(pool, DependencyGuard.queueFor(pool), maxWait, QueueOrder.FIFO,
                    AdaptiveLimit.selfTuning().maxLimit(pool).build());
            case RESILIENCE4J -> new BulkheadSettings(fixedLimit, UNBOUNDED_QUEUE, maxWait);
            case SPRING_BLOCK -> new BulkheadSettings(fixedLimit, UNBOUNDED_QUEUE, null);
            case SPRING_REJECT -> new BulkheadSettings(fixedLimit, 0, null);
        };
    }

    /**
     * The bound an unguarded request meets on its dependency's path, as bulkhead settings: on the database's,
     * HikariCP's pool (its size, waiters without bound, each giving up after the pool timeout); on the remote's, the
     * remote's worker pool (the fitted capacity, its executor's queue without bound and without a timeout).
     */
    private static BulkheadSettings unguardedPath(Scenario scenario, int downstreamCapacity) {
        if (scenario == Scenario.REMOTE) {
            return new BulkheadSettings(downstreamCapacity, UNBOUNDED_QUEUE, null);
        }
        return new BulkheadSettings(LabApplication.POOL_SIZE, UNBOUNDED_QUEUE,
                Duration.ofMillis(LabApplication.POOL_TIMEOUT_MILLIS));
    }

    /**
     * Predicts a run.
     *
     * @param model the fitted downstream
     * @param bulkhead the guard's settings ({@link #settings})
     * @param stages the run's schedule
     * @param samples the run's requests, whose send times are replayed; {@code null} to draw arrivals on the
     *     schedule
     * @param clientTimeout when the client gives up
     * @param slowdowns when the downstream works slower ({@link #slowdownOf}); empty for a run at full speed
     * @return one entry per stage, in order
     */
    static List<StageFigures> predict(ServiceModel model, BulkheadSettings bulkhead, List<Stage> stages,
            List<Sample> samples, Duration clientTimeout, List<Slowdown> slowdowns) {
        return predictLanes(model, bulkhead, List.of(new LaneLoad(null, stages, samples)), clientTimeout, slowdowns)
                .get(0);
    }

    /**
     * One lane of a run's load: its own stages (timed as every other lane's), the priority its requests carry
     * through the guard, if any, and the requests the lab sent in it, if the run has been made.
     *
     * @param priority the requests' priority, or {@code null} when the guard gives every request the same
     * @param stages the lane's schedule
     * @param samples the lane's requests, whose send times are replayed; {@code null} to draw the lane's arrivals
     *     (then every lane's are drawn)
     */
    record LaneLoad(Priority priority, List<Stage> stages, List<Sample> samples) {

        /**
         * A lane whose arrivals are drawn on its schedule.
         *
         * @param priority the requests' priority, or {@code null}
         * @param stages the lane's schedule
         */
        LaneLoad(Priority priority, List<Stage> stages) {
            this(priority, stages, null);
        }
    }

    /**
     * Predicts a run whose load comes in several lanes at once through one guard, as the shedding experiment's
     * critical and sheddable requests: one simulation, its calls split by lane and by the stage they were due in.
     *
     * @param model the fitted downstream
     * @param bulkhead the guard's settings
     * @param lanes the lanes, their stages timed alike (the first lane's ends split every lane)
     * @param clientTimeout when the client gives up
     * @param slowdowns when the downstream works slower; empty for a run at full speed
     * @return per lane, in the order given, one entry per stage
     */
    static List<List<StageFigures>> predictLanes(ServiceModel model, BulkheadSettings bulkhead, List<LaneLoad> lanes,
            Duration clientTimeout, List<Slowdown> slowdowns) {
        List<Stage> timing = lanes.get(0).stages();
        long[] ends = new long[timing.size()];
        long end = 0;
        for (int i = 0; i < timing.size(); i++) {
            end += timing.get(i).length().toNanos();
            ends[i] = end;
        }
        List<LoadSchedule.Lane> scheduled = new ArrayList<>();
        for (LaneLoad lane : lanes) {
            List<LoadSchedule.Phase> phases = new ArrayList<>();
            for (Stage s : lane.stages()) {
                phases.add(new LoadSchedule.Phase(s.fromRate(), s.toRate(), s.length().toNanos()));
            }
            scheduled.add(new LoadSchedule.Lane(lane.priority(), phases));
        }
        LoadSchedule schedule = new LoadSchedule(scheduled);
        long overhead = Math.round(model.overheadMillis() * 1e6);
        long timeout = clientTimeout.toNanos();
        // all.get(lane).get(stage): every outcome's latency; ok: the successes'.
        List<List<List<Long>>> all = new ArrayList<>();
        List<List<List<Long>>> ok = new ArrayList<>();
        for (int l = 0; l < lanes.size(); l++) {
            all.add(new ArrayList<>());
            ok.add(new ArrayList<>());
            for (int i = 0; i < timing.size(); i++) {
                all.get(l).add(new ArrayList<>());
                ok.get(l).add(new ArrayList<>());
            }
        }
        ArrivalModel.OpenLoop arrivals = lanes.stream().allMatch(lane -> lane.samples() != null)
                ? new ArrivalModel.OpenLoop(schedule, ArrivalTrace.ofLanes(lanes.stream()
                        .map(lane -> lane.samples().stream().mapToLong(Sample::sentNanos).toArray())
                        .toArray(long[][]::new)))
                : new ArrivalModel.OpenLoop(schedule);
        new Simulation(model.settings().arrivals(arrivals).duration(schedule.length())
                .drain(DRAIN).bulkhead(bulkhead).slowdowns(slowdowns).build()).run(ProgressListener.none(),
                (lane, due, outcome, latency) -> {
                    int stage = 0;
                    while (stage < ends.length - 1 && due >= ends[stage]) {
                        stage++;
                    }
                    long seen = Math.min(latency + overhead, timeout);
                    all.get(lane).get(stage).add(seen);
                    if (outcome == CallOutcome.COMPLETED && latency + overhead <= timeout) {
                        ok.get(lane).get(stage).add(seen);
                    }
                });
        List<List<StageFigures>> figures = new ArrayList<>();
        for (int l = 0; l < lanes.size(); l++) {
            List<StageFigures> lane = new ArrayList<>();
            for (int i = 0; i < timing.size(); i++) {
                Stage s = lanes.get(l).stages().get(i);
                lane.add(new StageFigures(s.name(),
                        Math.round(ok.get(l).get(i).size() / (s.length().toNanos() / 1e9) * 10) / 10.0,
                        RunResult.millis(percentile(all.get(l).get(i), 0.99)),
                        RunResult.millis(percentile(ok.get(l).get(i), 0.99))));
            }
            figures.add(List.copyOf(lane));
        }
        return List.copyOf(figures);
    }

    /**
     * The simulator's bulkhead standing for an edge mode of the shedding experiment: {@code none} is the database
     * path's HikariCP pool (no route is shed), every other mode the edge's bulkhead as {@link LabApplication}
     * configures it (the pool's size, the lab's queue and maximum wait).
     *
     * @param mode the edge mode
     * @return the settings
     */
    static BulkheadSettings edgeSettings(EdgeMode mode) {
        if (mode == EdgeMode.NONE) {
            return unguardedPath(Scenario.SHEDDING, LabApplication.POOL_SIZE);
        }
        return new BulkheadSettings(LabApplication.POOL_SIZE, DependencyGuard.queueFor(LabApplication.POOL_SIZE),
                LabExperiment.MAX_WAIT);
    }

    /**
     * Whether an edge mode gives its two routes their priorities ({@code CRITICAL}, {@code SHEDDABLE}).
     *
     * @param mode the edge mode
     * @return true for {@link EdgeMode#PRIORITIES} and {@link EdgeMode#PRIORITIES_429}
     */
    static boolean prioritized(EdgeMode mode) {
        return mode == EdgeMode.PRIORITIES || mode == EdgeMode.PRIORITIES_429;
    }

    /**
     * The slowdown experiment's slow stage as the simulator's {@link Slowdown}: the second stage, at the speed the
     * lab measured for the slowed database, its closed-loop throughput at the pool's size with the slowdown running
     * over the same throughput without it (like for like: the same clients, so the same contention). The
     * processor-sharing downstream slows every call by that factor, so its throughput at any concurrency falls by it.
     *
     * @param stages the run's schedule, at least two stages
     * @param slowedPerSecond the throughput measured while the database was slowed
     * @param normalPerSecond the throughput of as many clients without the slowdown
     * @return the slow stage at that speed, at most 1
     * @throws IllegalArgumentException when the slowed throughput is negative (0 is a pause), the normal one not
     *     positive, or there are fewer than two stages
     */
    static Slowdown slowdownOf(List<Stage> stages, double slowedPerSecond, double normalPerSecond) {
        if (!(slowedPerSecond >= 0) || !(normalPerSecond > 0)) {
            throw new IllegalArgumentException("the slowed throughput must be at least 0 and the normal one positive"
                    + " but they were " + slowedPerSecond + " and " + normalPerSecond);
        }
        if (stages.size() < 2) {
            throw new IllegalArgumentException("a slowdown is the second stage, but there are " + stages.size());
        }
        Duration from = stages.get(0).length();
        return new Slowdown(from, from.plus(stages.get(1).length()), Math.min(1.0, slowedPerSecond / normalPerSecond));
    }

    private static long percentile(List<Long> values, double q) {
        long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(sorted);
        return RunResult.percentile(sorted, q);
    }
}
