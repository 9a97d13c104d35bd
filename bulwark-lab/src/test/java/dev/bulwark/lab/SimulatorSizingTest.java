package dev.bulwark.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Priority;
import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.Distribution;
import dev.bulwark.cli.internal.sim.ProgressListener;
import dev.bulwark.cli.internal.sim.Rate;
import dev.bulwark.cli.internal.sim.Simulation;
import dev.bulwark.cli.internal.sim.Slowdown;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lab's use of the simulator, without PostgreSQL: the downstream fitted to a probe, the fixed limit the simulator
 * sizes from it, and the sim-vs-real table. The probe is made by the simulator's own closed loop from a known
 * downstream (capacity 3, degradation 0.5), so the fit must find that downstream again, and the sizing and the
 * prediction must be what the simulator gives for it. About 10 s on two busy cores, most of it the fit's 60 or so
 * short virtual-time runs.
 */
class SimulatorSizingTest {

    private static final double SERVICE_MILLIS = 16.9;
    /** A moderate spread (p99 about 3x the median): calls vary, none holds a slot for long. */
    private static final double SERVICE_SIGMA = 0.5;
    private static final double OVERHEAD_MILLIS = 5.0;
    private static final int CAPACITY = 3;
    private static final double DEGRADATION = 0.5;
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final Duration MAX_WAIT = Duration.ofMillis(50);

    private static final BulkheadSettings FIXED_AT_CAPACITY = SimPredictor.settings(Scenario.OVERLOAD,
            GuardMode.FIXED, CAPACITY, CAPACITY, MAX_WAIT);
    private static final BulkheadSettings UNGUARDED = SimPredictor.settings(Scenario.OVERLOAD, GuardMode.NONE,
            CAPACITY, CAPACITY, MAX_WAIT);

    private static ServiceModel model;

    @BeforeAll
    static void fit() {
        Map<Integer, Double> probe = new LinkedHashMap<>();
        // Four points rather than the lab's five (no 10 clients): the fit's cost grows with the clients above each
        // capacity it tries, and four are enough to tell capacity 3 and degradation 0.5 from their neighbours.
        for (int clients : new int[] {1, 2, 4, 6}) {
            probe.put(clients, ServiceModel.closedLoop(ServiceModel.serviceTime(SERVICE_MILLIS, SERVICE_SIGMA),
                    OVERHEAD_MILLIS, CAPACITY, DEGRADATION, 0, clients));
        }
        model = ServiceModel.fit(SERVICE_MILLIS, SERVICE_SIGMA, probe, LabApplication.POOL_SIZE);
    }

    /** The downstream's full-speed rate: capacity calls at once, each taking the service time. */
    private static double capacityRate() {
        return CAPACITY * 1000 / SERVICE_MILLIS;
    }

    @Test
    void theFitFindsTheContentionOfADownstreamThatScalesSublinearly() {
        // Amdahl's law with a serial fraction of 0.4: two clients get 1.43 times one client's throughput, not 2, and
        // no whole number of full-speed slots, with any degradation, draws that curve.
        Map<Integer, Double> probe = new LinkedHashMap<>();
        for (int clients : new int[] {1, 2, 4, 6}) {
            probe.put(clients, ServiceModel.closedLoop(ServiceModel.serviceTime(SERVICE_MILLIS, SERVICE_SIGMA),
                    OVERHEAD_MILLIS, LabApplication.POOL_SIZE, 0, 0.4, clients));
        }

        ServiceModel contended = ServiceModel.fit(SERVICE_MILLIS, SERVICE_SIGMA, probe, LabApplication.POOL_SIZE);

        assertThat(contended.contention()).isEqualTo(0.4);
        assertThat(contended.capacity()).isEqualTo(LabApplication.POOL_SIZE);
        assertThat(contended.describe()).contains("contention 0.4 (Amdahl's serial fraction)");
        assertThat(model.contention()).as("the probe without contention is fitted without").isZero();
    }

    @Test
    void theFitFindsTheDownstreamThatMadeTheProbe() {
        assertThat(model.capacity()).isEqualTo(CAPACITY);
        assertThat(model.degradation()).isEqualTo(DEGRADATION);
        assertThat(model.serviceMillis()).isEqualTo(SERVICE_MILLIS);
        // The overhead is read off the 1-client throughput, which is itself a simulated (noisy) figure.
        assertThat(model.overheadMillis()).isCloseTo(OVERHEAD_MILLIS, within(1.0));
        for (ServiceModel.ProbePoint p : model.probe()) {
            assertThat(p.modelPerSecond()).as("clients %d", p.clients())
                    .isCloseTo(p.measuredPerSecond(), within(0.05 * p.measuredPerSecond()));
        }
    }

    @Test
    void theSimulatorSizesTheFixedLimitAtTheDownstreamsCapacity() {
        double surge = 2 * capacityRate();
        int little = LabExperiment.littleLimit(capacityRate(), SERVICE_MILLIS);
        SimulatorSizing sizing = SimulatorSizing.size(model, surge, LabApplication.POOL_SIZE, TIMEOUT, MAX_WAIT,
                little);

        // Beyond the capacity the degrading downstream serves less; below it a slot is always short.
        assertThat(sizing.limit()).isEqualTo(CAPACITY);
        assertThat(sizing.littleLimit()).isEqualTo(little);
        assertThat(sizing.rows()).extracting(SimulatorSizing.Row::limit)
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        // The smallest limit meeting the targets, as sweep names it.
        assertThat(sizing.rows().stream().filter(SimulatorSizing.Row::meets).findFirst().orElseThrow().limit())
                .isEqualTo(sizing.limit());
        assertThat(sizing.p99TargetMillis()).isCloseTo(500 - model.overheadMillis(), within(0.1));
        // Each row is what the simulator gives for that limit: the same run, made here directly.
        SimulatorSizing.Row chosen = sizing.rows().get(sizing.limit() - 1);
        double direct = new Simulation(model.settings().arrivals(new ArrivalModel.OpenLoop(new Rate(surge)))
                .duration(SimulatorSizing.RUN).drain(Duration.ofSeconds(2))
                .bulkhead(SimPredictor.settings(Scenario.OVERLOAD, GuardMode.FIXED, sizing.limit(), CAPACITY,
                        MAX_WAIT)).build())
                .run(ProgressListener.none()).goodput();
        assertThat(chosen.goodputPerSecond()).isCloseTo(direct, within(0.1));
        assertThat(chosen.queue()).isEqualTo(4 * CAPACITY + 20);
        assertThat(chosen.goodputPerSecond()).isCloseTo(capacityRate(), within(0.1 * capacityRate()));
    }

    @Test
    void withoutDegradationTheSmallestLimitThatServesAsMuchAsAnyIsChosenNotTheLargest() {
        // Sharing only (degradation 0): every limit from the capacity up serves about as much, with a longer p99 the
        // higher it is; the sizing must name the smallest of them, as sweep names the smallest setting.
        ServiceModel sharing = new ServiceModel(SERVICE_MILLIS, SERVICE_SIGMA, OVERHEAD_MILLIS, CAPACITY, 0, 0,
                List.of());
        SimulatorSizing sizing = SimulatorSizing.size(sharing, 2 * capacityRate(), LabApplication.POOL_SIZE, TIMEOUT,
                MAX_WAIT, 1);

        assertThat(sizing.rows().stream().filter(SimulatorSizing.Row::meets).count()).isGreaterThan(1);
        assertThat(sizing.limit()).isEqualTo(CAPACITY);
        assertThat(sizing.rows().get(CAPACITY - 2).meets()).isFalse();
    }

    @Test
    void predictedLatenciesIncludeTheOverheadAndTheClientsTimeoutCutsThem() {
        List<Stage> stages = Scenario.OVERLOAD.stages(capacityRate(), true);
        // 600 ms outside the dependency's path: every call of the warm stage is seen after 600 ms and more, and still
        // within the client's second; at 990 ms only calls served within 10 ms make it in time.
        ServiceModel slowOutside = new ServiceModel(SERVICE_MILLIS, SERVICE_SIGMA, 600, CAPACITY, DEGRADATION, 0,
                List.of());
        ServiceModel almostTimedOut = new ServiceModel(SERVICE_MILLIS, SERVICE_SIGMA, 990, CAPACITY, DEGRADATION, 0,
                List.of());
        double servedWithin10Millis = shareWithin(almostTimedOut.serviceTime(), Duration.ofMillis(10));

        SimPredictor.StageFigures warm = SimPredictor.predict(slowOutside,
                FIXED_AT_CAPACITY, stages, null, TIMEOUT, List.of()).get(0);
        SimPredictor.StageFigures cut = SimPredictor.predict(almostTimedOut,
                FIXED_AT_CAPACITY, stages, null, TIMEOUT, List.of()).get(0);

        assertThat(warm.okP99Millis()).isBetween(600.0, 750.0);
        assertThat(warm.goodputPerSecond()).isCloseTo(capacityRate() / 2, within(0.1 * capacityRate()));
        assertThat(servedWithin10Millis).isBetween(0.1, 0.5);
        assertThat(cut.goodputPerSecond()).isCloseTo(servedWithin10Millis * capacityRate() / 2,
                within(0.1 * capacityRate()));
        assertThat(cut.p99Millis()).isEqualTo(TIMEOUT.toMillis());
    }

    @Test
    void aRunsOwnArrivalsAreReplayedSoALightStageIsPredictedWithExactlyItsRequests() {
        // Every request of a light stage is served on both sides, so with the run's own send times the predicted
        // goodput is the lab's request count over the stage, not another Poisson draw of it (which over a 3-s stage
        // differs by several percent). 37 requests in the warm stage, 5 in the recovery, none in the surge.
        List<Stage> stages = Scenario.OVERLOAD.stages(capacityRate(), true);
        long warm = stages.get(0).length().toNanos();
        long recoveryStart = warm + stages.get(1).length().toNanos();
        List<Sample> samples = new java.util.ArrayList<>();
        for (int i = 0; i < 37; i++) {
            samples.add(new Sample(i * (warm / 40), 0, Outcome.OK, 0));
        }
        for (int i = 0; i < 5; i++) {
            samples.add(new Sample(recoveryStart + i * 100_000_000L, 0, Outcome.OK, 0));
        }

        List<SimPredictor.StageFigures> replayed = SimPredictor.predict(model, FIXED_AT_CAPACITY, stages, samples,
                TIMEOUT, List.of());

        assertThat(replayed.get(0).goodputPerSecond()).isEqualTo(Math.round(37 / (warm / 1e9) * 10) / 10.0);
        assertThat(replayed.get(1).goodputPerSecond()).isZero();
        assertThat(replayed.get(2).goodputPerSecond())
                .isEqualTo(Math.round(5 / (stages.get(2).length().toNanos() / 1e9) * 10) / 10.0);
    }

    @Test
    void theSlowStageIsTheSecondAtTheMeasuredShareOfTheThroughput() {
        List<Stage> stages = Scenario.SLOWDOWN.stages(capacityRate(), true);

        Slowdown slow = SimPredictor.slowdownOf(stages, 64, 100);

        assertThat(slow.from()).isEqualTo(stages.get(0).length());
        assertThat(slow.until()).isEqualTo(stages.get(0).length().plus(stages.get(1).length()));
        assertThat(slow.speed()).isEqualTo(0.64);
        // Faster than without it (noise in two probes) is not a slowdown; nothing measured is a pause.
        assertThat(SimPredictor.slowdownOf(stages, 120, 100).speed()).isEqualTo(1.0);
        assertThat(SimPredictor.slowdownOf(stages, 0, 100).speed()).isZero();
        assertThatThrownBy(() -> SimPredictor.slowdownOf(stages, 50, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSlowedDownstreamServesLessOnlyWhileSlowed() {
        // 0.7x the capacity throughout; during the second stage the downstream works at half speed, so the load is
        // 1.4x what it can serve then: the fixed guard holds goodput at about the slowed capacity and recovers after.
        List<Stage> stages = Scenario.SLOWDOWN.stages(capacityRate(), true);
        Slowdown half = SimPredictor.slowdownOf(stages, 50, 100);

        List<SimPredictor.StageFigures> slowed = SimPredictor.predict(model, FIXED_AT_CAPACITY, stages, null, TIMEOUT,
                List.of(half));
        List<SimPredictor.StageFigures> normal = SimPredictor.predict(model, FIXED_AT_CAPACITY, stages, null, TIMEOUT,
                List.of());

        double offered = Scenario.SLOWDOWN_RATE * capacityRate();
        assertThat(normal).allSatisfy(f -> assertThat(f.goodputPerSecond()).isCloseTo(offered,
                within(0.1 * capacityRate())));
        assertThat(slowed.get(0).goodputPerSecond()).isEqualTo(normal.get(0).goodputPerSecond());
        assertThat(slowed.get(1).goodputPerSecond()).isCloseTo(capacityRate() / 2, within(0.1 * capacityRate()));
        // Calls take twice as long and the rest wait up to the guard's 50 ms: slower, but bounded.
        assertThat(slowed.get(1).p99Millis()).isGreaterThan(1.5 * normal.get(1).p99Millis());
        assertThat(slowed.get(2).goodputPerSecond()).isCloseTo(offered, within(0.1 * capacityRate()));
    }

    @Test
    void theSheddingPredictionSplitsTheLanesAndPrioritiesProtectTheCriticalOne() {
        List<Stage> sheddable = Scenario.SHEDDING.stages(capacityRate(), true);
        List<Stage> critical = Scenario.SHEDDING.criticalStages(capacityRate(), true);

        List<List<SimPredictor.StageFigures>> flat = SimPredictor.predictLanes(model,
                SimPredictor.edgeSettings(EdgeMode.SHED), List.of(new SimPredictor.LaneLoad(null, critical),
                        new SimPredictor.LaneLoad(null, sheddable)), TIMEOUT, List.of());
        List<List<SimPredictor.StageFigures>> prioritized = SimPredictor.predictLanes(model,
                SimPredictor.edgeSettings(EdgeMode.PRIORITIES), List.of(
                        new SimPredictor.LaneLoad(Priority.CRITICAL, critical),
                        new SimPredictor.LaneLoad(Priority.SHEDDABLE, sheddable)), TIMEOUT, List.of());

        double criticalRate = Scenario.CRITICAL_RATE * capacityRate();
        assertThat(flat).hasSize(2);
        assertThat(flat.get(0)).extracting(SimPredictor.StageFigures::stage)
                .containsExactly("warm 0.5x", "surge 2.4x", "recovery 0.5x");
        // Before the surge both lanes are served whole, whichever the mode.
        assertThat(flat.get(0).get(0).goodputPerSecond()).isCloseTo(criticalRate, within(0.1 * capacityRate()));
        assertThat(flat.get(1).get(0).goodputPerSecond()).isCloseTo(0.1 * capacityRate(),
                within(0.05 * capacityRate()));
        // In the surge (2.4x the capacity) the flat edge refuses in arrival order: the critical lane loses its share;
        // with priorities most of it is served and the sheddable lane takes the refusals.
        assertThat(flat.get(0).get(1).goodputPerSecond()).isLessThan(0.8 * criticalRate);
        assertThat(prioritized.get(0).get(1).goodputPerSecond()).isGreaterThan(0.8 * criticalRate)
                .isGreaterThan(1.5 * flat.get(0).get(1).goodputPerSecond());
        assertThat(prioritized.get(1).get(1).goodputPerSecond())
                .isLessThan(flat.get(1).get(1).goodputPerSecond());
        assertThat(SimPredictor.prioritized(EdgeMode.PRIORITIES_429)).isTrue();
        assertThat(SimPredictor.prioritized(EdgeMode.SHED)).isFalse();
    }

    @Test
    void thePredictionSplitsARunByStageAndSeparatesTheGuards() {
        List<Stage> stages = Scenario.OVERLOAD.stages(capacityRate(), true);
        List<SimPredictor.StageFigures> fixed = SimPredictor.predict(model,
                FIXED_AT_CAPACITY, stages, null, TIMEOUT, List.of());
        List<SimPredictor.StageFigures> none = SimPredictor.predict(model,
                UNGUARDED, stages, null, TIMEOUT, List.of());

        assertThat(fixed).extracting(SimPredictor.StageFigures::stage)
                .containsExactly("warm 0.5x", "surge 2x", "recovery 0.5x");
        // Half the capacity is served whole; in the surge the bulkhead keeps the downstream at its capacity.
        assertThat(fixed.get(0).goodputPerSecond()).isCloseTo(capacityRate() / 2, within(0.1 * capacityRate()));
        assertThat(fixed.get(1).goodputPerSecond()).isCloseTo(capacityRate(), within(0.1 * capacityRate()));
        assertThat(fixed.get(1).p99Millis()).isLessThan(TIMEOUT.toMillis() / 2.0);
        // Behind HikariCP's pool alone (10 connections, waits of up to 2 s) the surge outlasts the client's patience.
        assertThat(none.get(1).goodputPerSecond()).isLessThan(0.5 * capacityRate());
        assertThat(none.get(1).p99Millis()).isEqualTo(TIMEOUT.toMillis());
        // Latencies include the overhead outside the dependency's path.
        assertThat(fixed.get(0).okP99Millis()).isGreaterThan(model.overheadMillis());
    }

    @Test
    void theTablePairsEachStageWithItsRatioAndTheBars() {
        List<SimPredictor.StageFigures> predicted = List.of(
                new SimPredictor.StageFigures("warm", 100, 50, 50),
                new SimPredictor.StageFigures("surge", 100, 120, 110),
                new SimPredictor.StageFigures("recovery", 100, 50, 50),
                new SimPredictor.StageFigures("after", 0, 1000, 0));
        RunResult measured = new RunResult("fixed", 3, 3, 0, 0, 0, 0, 0, Map.of(), 0, 0, 0,
                List.of(95.0, 80.0, 109.0, 0.0), List.of(1.0, 0.5, 1.0, 0.0), List.of(45.0, 100.0, 40.0, 1000.0),
                List.of());

        SimVsReal table = SimVsReal.of(predicted, measured);

        assertThat(table.guard()).isEqualTo("fixed");
        // A stage where no request succeeded, as predicted, matches (ratio 1) rather than dividing by zero.
        assertThat(table.stages()).extracting(r -> Math.round(r.goodputRatio() * 100) / 100.0)
                .containsExactly(1.05, 1.25, 0.92, 1.0);
        assertThat(table.stages()).extracting(r -> Math.round(r.p99Ratio() * 100) / 100.0)
                .containsExactly(1.11, 1.2, 1.25, 1.0);
        assertThat(table.stages()).extracting(SimVsReal.Row::withinBar).containsExactly(true, false, false, true);
        assertThat(Report.simVsReal(List.of(table))).contains("fixed         surge").contains("100 / 80 (1.25)")
                .contains("120 / 100 (1.20)");
    }

    @Test
    void theBarsAreDecidedOnTheFiguresNotOnARoundedRatio() {
        // 110 against 100 is exactly at the goodput bar (|1.1 - 1| is 0.10000000000000009 in floating point), and
        // 109.6 against 100 is shown as 1.10 but within it: both within, as a reader of the table expects.
        assertThat(SimVsReal.within(110, 100, SimVsReal.GOODPUT_BAR)).isTrue();
        assertThat(SimVsReal.within(109.6, 100, SimVsReal.GOODPUT_BAR)).isTrue();
        assertThat(SimVsReal.within(90, 100, SimVsReal.GOODPUT_BAR)).isTrue();
        assertThat(SimVsReal.within(110.1, 100, SimVsReal.GOODPUT_BAR)).isFalse();
        assertThat(SimVsReal.within(120, 100, SimVsReal.P99_BAR)).isTrue();
        assertThat(SimVsReal.within(1, 0, SimVsReal.P99_BAR)).isFalse();
        assertThat(SimVsReal.within(0, 0, SimVsReal.P99_BAR)).isTrue();

        SimVsReal table = SimVsReal.of(List.of(new SimPredictor.StageFigures("surge", 110, 120, 120)),
                new RunResult("fixed", 3, 3, 0, 0, 0, 0, 0, Map.of(), 0, 0, 0, List.of(100.0), List.of(1.0),
                        List.of(100.0), List.of()));
        assertThat(table.stages().get(0).withinBar()).isTrue();
    }

    /** The share of a distribution's draws at or below {@code bound} (100,000 draws, seed 42). */
    private static double shareWithin(Distribution distribution, Duration bound) {
        SplittableRandom random = new SplittableRandom(42);
        int within = 0;
        for (int i = 0; i < 100_000; i++) {
            if (distribution.sampleNanos(random) <= bound.toNanos()) {
                within++;
            }
        }
        return within / 100_000.0;
    }
}
