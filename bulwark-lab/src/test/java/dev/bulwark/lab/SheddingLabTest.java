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
 * Runs the lab's CI-sized shedding experiment for real (PostgreSQL, the Spring Boot service with Bulwark's MVC
 * shedding filter, two open-loop loads) and checks its qualitative outcome: without shedding the critical requests
 * time out with everyone else's through the surge; with the filter and priorities they keep their success rate and
 * their latency while the sheddable ones take the refusals, whether refused with 503 or 429; the same filter without
 * priorities refuses more critical requests. About two minutes: tagged {@code lab}, run with
 * {@code -Dlab.groups=lab}.
 */
@Tag("lab")
class SheddingLabTest {

    /** Above this p99 lag of a load generator in a shedding run, the run's figures are the machine's. */
    private static final double MAX_GENERATOR_LAG_MILLIS = 20;

    @Test
    void prioritiesKeepTheCriticalRequestsServedThroughASheddableSurge() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        LabExperiment.Result result = new LabExperiment(Scenario.SHEDDING, true, List.of(),
                List.of(EdgeMode.values()), false, false, new PrintStream(log, true, StandardCharsets.UTF_8)).run();
        String report = Report.text(result);
        Map<String, RunResult> runs = result.runs().stream()
                .collect(Collectors.toMap(RunResult::guard, Function.identity()));
        long clientTimeoutMillis = LabExperiment.CLIENT_TIMEOUT.toMillis();
        List<String> shedding = List.of("shed", "priorities", "priorities429");

        assertThat(runs).as(report).hasSize(2 * EdgeMode.values().length);
        // As in OverloadLabTest: a generator that could not keep its schedule measured the machine.
        for (String mode : shedding) {
            for (String run : List.of(mode + " critical", mode + " sheddable")) {
                assumeThat(runs.get(run).surgeGeneratorLagP99Millis())
                        .as("the load generator kept its schedule in the " + run + " run\n" + report)
                        .isLessThan(MAX_GENERATOR_LAG_MILLIS);
            }
        }
        assertThat(runs.get("none critical").surgeP99Millis())
                .as("no shedding: the critical requests' p99 reaches the timeout\n" + report)
                .isGreaterThanOrEqualTo(0.9 * clientTimeoutMillis);
        for (String mode : List.of("priorities", "priorities429")) {
            RunResult critical = runs.get(mode + " critical");
            RunResult sheddable = runs.get(mode + " sheddable");
            assertThat(critical.stageOkShare().get(1)).as(mode + ": the critical requests succeed\n" + report)
                    .isGreaterThanOrEqualTo(0.95);
            assertThat(critical.surgeP99Millis()).as(mode + ": the critical requests' p99 stays bounded\n" + report)
                    .isLessThan(0.5 * clientTimeoutMillis);
            int criticalRefused = critical.surgeOutcomes().get(Outcome.REFUSED);
            assertThat(sheddable.surgeOutcomes().get(Outcome.REFUSED))
                    .as(mode + ": the sheddable requests take the refusals\n" + report)
                    .isGreaterThan(10 * Math.max(1, criticalRefused));
            assertThat(runs.get("shed critical").surgeOutcomes().get(Outcome.REFUSED))
                    .as("without priorities the critical requests are refused more than with (" + mode + ")\n"
                            + report).isGreaterThan(criticalRefused);
        }
        for (String mode : shedding) {
            for (RunResult run : List.of(runs.get(mode + " critical"), runs.get(mode + " sheddable"))) {
                assertThat(run.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT) + run.surgeOutcomes().get(Outcome.ERROR))
                        .as(run.guard() + ": refuses rather than times out\n" + report).isZero();
            }
        }
    }
}
