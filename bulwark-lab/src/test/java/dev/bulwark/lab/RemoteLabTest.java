package dev.bulwark.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs the lab's CI-sized remote experiment for real (PostgreSQL, the second HTTP service with its four workers, the
 * Spring Boot service, the open-loop load) and checks its qualitative outcome: without a guard the surge's latency
 * reaches the client's timeout and goodput collapses; with Bulwark's fixed or selfTuning bulkhead the p99 stays
 * bounded, nothing times out, and the remote is kept busy (goodput above 60% of the probe's capacity: the remote's
 * capacity is its workers', which a busy machine barely moves); and the simulator's surge goodput behind each
 * bulkhead is within 25% of the measured (issue 42's bar is 10%: a CI-sized run on a shared machine is held to a
 * looser one). About a minute and a half: tagged {@code lab}, run with {@code -Dlab.groups=lab}.
 */
@Tag("lab")
class RemoteLabTest {

    /** Above this p99 lag of the load generator in a bulkhead's run, the run's figures are the machine's. */
    private static final double MAX_GENERATOR_LAG_MILLIS = 20;

    @Test
    void aBulkheadKeepsTheRemoteAtItsCapacityWhereTheUnguardedServiceCollapses() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        LabExperiment.Result result = new LabExperiment(Scenario.REMOTE, true,
                List.of(GuardMode.NONE, GuardMode.FIXED, GuardMode.SELF_TUNING), List.of(), false, false,
                new PrintStream(log, true, StandardCharsets.UTF_8)).run();
        String report = Report.text(result);
        Map<String, RunResult> runs = result.runs().stream()
                .collect(Collectors.toMap(RunResult::guard, Function.identity()));
        Map<String, SimVsReal> predictions = result.simVsReal().stream()
                .collect(Collectors.toMap(SimVsReal::guard, Function.identity()));
        double capacity = result.capacityPerSecond();
        long clientTimeoutMillis = LabExperiment.CLIENT_TIMEOUT.toMillis();

        assertThat(capacity).as(report).isPositive();
        // As in OverloadLabTest: a run whose load generator could not keep its schedule measured the machine.
        for (String guard : List.of("fixed", "selfTuning")) {
            assumeThat(runs.get(guard).surgeGeneratorLagP99Millis())
                    .as("the load generator kept its schedule in the " + guard + " run\n" + report)
                    .isLessThan(MAX_GENERATOR_LAG_MILLIS);
        }
        RunResult none = runs.get("none");
        assertThat(none.surgeP99Millis()).as("no guard: p99 reaches the client's timeout\n" + report)
                .isGreaterThanOrEqualTo(0.9 * clientTimeoutMillis);
        assertThat(none.surgeGoodputPerSecond()).as("no guard: goodput collapses\n" + report)
                .isLessThan(0.6 * capacity);
        for (String guard : List.of("fixed", "selfTuning")) {
            RunResult run = runs.get(guard);
            assertThat(run.surgeP99Millis()).as(guard + ": p99 bounded\n" + report)
                    .isLessThan(0.5 * clientTimeoutMillis);
            assertThat(run.surgeGoodputPerSecond()).as(guard + ": the remote kept busy\n" + report)
                    .isGreaterThan(0.6 * capacity).isGreaterThan(none.surgeGoodputPerSecond());
            assertThat(run.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT) + run.surgeOutcomes().get(Outcome.ERROR))
                    .as(guard + ": refuses rather than times out\n" + report).isZero();
            // The surge is the schedule's second stage.
            assertThat(predictions.get(guard).stages().get(1).goodputRatio())
                    .as(guard + ": the simulator's surge goodput within 25% of the measured\n" + report)
                    .isBetween(0.75, 1.25);
        }
    }
}
