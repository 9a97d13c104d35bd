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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs the lab's CI-sized overload experiments for real (PostgreSQL, the second HTTP service, the Spring Boot
 * service, the open-loop load), on the database's path ({@link Scenario#OVERLOAD}) and on the second HTTP
 * service's ({@link Scenario#REMOTE}), and checks their qualitative outcome, not exact figures: without a bulkhead
 * the surge's latency reaches the client's timeout and goodput collapses; with Bulwark's fixed or selfTuning bulkhead
 * the p99 stays bounded, nothing times out, and goodput is above the unguarded run's. On the remote's path, whose
 * capacity is its four workers' (which a busy machine barely moves, unlike the database's CPU), also: goodput above
 * 60% of the probe's capacity, and the simulator's surge goodput behind each bulkhead within 25% of the measured
 * (issue 42's bar is 10%; a CI-sized run on a shared machine is held to a looser one). About 70 s each: tagged
 * {@code lab} and {@code ci-lab}, run with {@code -Dlab.groups=lab}, and by README's test command (with
 * {@code -Dlab.groups='none() | ci-lab'}).
 */
@Tag("lab")
@Tag("ci-lab")
class OverloadLabTest {

    /** Above this p99 lag of the load generator in a bulkhead's run, the run's figures are the machine's. */
    private static final double MAX_GENERATOR_LAG_MILLIS = 20;

    @ParameterizedTest
    @EnumSource(value = Scenario.class, names = {"OVERLOAD", "REMOTE"})
    void aBulkheadHoldsGoodputAndLatencyWhereTheUnguardedServiceCollapses(Scenario scenario) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        LabExperiment.Result result = new LabExperiment(scenario, true,
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
        // The load generator shares two cores with the service, PostgreSQL and (on a developer's machine) other
        // builds. When it could not keep its own schedule during a bulkhead's surge, the run measured the machine,
        // not the bulkhead: the test is skipped rather than passed or failed. (The unguarded run always starves it.)
        for (String guard : List.of("fixed", "selfTuning")) {
            assumeThat(runs.get(guard).surgeGeneratorLagP99Millis())
                    .as("the load generator kept its schedule in the " + guard + " run\n" + report)
                    .isLessThan(MAX_GENERATOR_LAG_MILLIS);
        }
        RunResult none = runs.get("none");
        assertThat(none.surgeP99Millis()).as("no bulkhead: p99 reaches the client's timeout\n" + report)
                .isGreaterThanOrEqualTo(0.9 * clientTimeoutMillis);
        assertThat(none.surgeGoodputPerSecond()).as("no bulkhead: goodput collapses\n" + report)
                .isLessThan(0.6 * capacity);
        for (String guard : List.of("fixed", "selfTuning")) {
            RunResult run = runs.get(guard);
            assertThat(run.surgeP99Millis()).as(guard + ": p99 bounded\n" + report)
                    .isLessThan(0.5 * clientTimeoutMillis);
            // On the database's path only "more than without a bulkhead": on two cores shared with other builds the
            // CPU left to the service during a run differs from the probe's by tens of percent, so a share of the
            // probe's capacity is reported but not asserted (docs/lab.md).
            assertThat(run.surgeGoodputPerSecond()).as(guard + ": goodput above the unguarded run's\n" + report)
                    .isGreaterThan(none.surgeGoodputPerSecond());
            assertThat(run.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT) + run.surgeOutcomes().get(Outcome.ERROR))
                    .as(guard + ": refuses rather than times out\n" + report).isZero();
            if (scenario == Scenario.REMOTE) {
                assertThat(run.surgeGoodputPerSecond()).as(guard + ": the remote kept busy\n" + report)
                        .isGreaterThan(0.6 * capacity);
                // The surge is the schedule's second stage.
                assertThat(predictions.get(guard).stages().get(1).goodputRatio())
                        .as(guard + ": the simulator's surge goodput within 25% of the measured\n" + report)
                        .isBetween(0.75, 1.25);
            }
        }
    }
}
