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
 * Runs the lab's CI-sized overload experiment for real (PostgreSQL, the Spring Boot service, the open-loop load)
 * and checks its qualitative outcome, not exact figures: without a bulkhead the surge's latency reaches the
 * client's timeout and goodput collapses; with Bulwark's fixed or selfTuning bulkhead the p99 stays bounded, nothing
 * times out, and goodput is above the unguarded run's. About a minute: tagged {@code lab}, run with
 * {@code -Dlab.groups=lab}.
 */
@Tag("lab")
class OverloadLabTest {

    /** Above this p99 lag of the load generator in a bulkhead's run, the run's figures are the machine's. */
    private static final double MAX_GENERATOR_LAG_MILLIS = 20;

    @Test
    void aBulkheadHoldsGoodputAndLatencyWhereTheUnguardedServiceCollapses() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        LabExperiment.Result result = new LabExperiment(Scenario.OVERLOAD, true,
                List.of(GuardMode.NONE, GuardMode.FIXED, GuardMode.SELF_TUNING), List.of(), false, false,
                new PrintStream(log, true, StandardCharsets.UTF_8)).run();
        String report = Report.text(result);
        Map<String, RunResult> runs = result.runs().stream()
                .collect(Collectors.toMap(RunResult::guard, Function.identity()));
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
            // Only "more than without a bulkhead": on two cores shared with other builds the CPU left to the
            // service during a run differs from the probe's by tens of percent, so a share of the probe's capacity
            // is reported but not asserted (docs/lab.md).
            assertThat(run.surgeGoodputPerSecond()).as(guard + ": goodput above the unguarded run's\n" + report)
                    .isGreaterThan(none.surgeGoodputPerSecond());
            assertThat(run.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT) + run.surgeOutcomes().get(Outcome.ERROR))
                    .as(guard + ": refuses rather than times out\n" + report).isZero();
        }
    }
}
