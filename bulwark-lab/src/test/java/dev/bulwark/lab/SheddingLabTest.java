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
 * their latency while the sheddable ones take the refusals; the same filter without priorities refuses critical
 * requests too. About a minute and a half: tagged {@code lab}, run with {@code -Dlab.groups=lab}.
 */
@Tag("lab")
class SheddingLabTest {

    /** Above this p99 lag of a load generator in a shedding run, the run's figures are the machine's. */
    private static final double MAX_GENERATOR_LAG_MILLIS = 20;

    @Test
    void prioritiesKeepTheCriticalRequestsServedThroughASheddableSurge() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        LabExperiment.Result result = new LabExperiment(Scenario.SHEDDING, true, List.of(),
                List.of(EdgeMode.NONE, EdgeMode.SHED, EdgeMode.PRIORITIES), false, false,
                new PrintStream(log, true, StandardCharsets.UTF_8)).run();
        String report = Report.text(result);
        Map<String, RunResult> runs = result.runs().stream()
                .collect(Collectors.toMap(RunResult::guard, Function.identity()));
        long clientTimeoutMillis = LabExperiment.CLIENT_TIMEOUT.toMillis();

        assertThat(runs).as(report).containsOnlyKeys("none critical", "none sheddable", "shed critical",
                "shed sheddable", "priorities critical", "priorities sheddable");
        // As in OverloadLabTest: a generator that could not keep its schedule measured the machine.
        for (String run : List.of("shed critical", "shed sheddable", "priorities critical", "priorities sheddable")) {
            assumeThat(runs.get(run).surgeGeneratorLagP99Millis())
                    .as("the load generator kept its schedule in the " + run + " run\n" + report)
                    .isLessThan(MAX_GENERATOR_LAG_MILLIS);
        }
        RunResult unguarded = runs.get("none critical");
        assertThat(unguarded.surgeP99Millis()).as("no shedding: the critical requests' p99 reaches the timeout\n"
                + report).isGreaterThanOrEqualTo(0.9 * clientTimeoutMillis);

        RunResult critical = runs.get("priorities critical");
        RunResult sheddable = runs.get("priorities sheddable");
        assertThat(critical.stageOkShare().get(1)).as("priorities: the critical requests succeed\n" + report)
                .isGreaterThanOrEqualTo(0.98);
        assertThat(critical.surgeP99Millis()).as("priorities: the critical requests' p99 stays bounded\n" + report)
                .isLessThan(0.5 * clientTimeoutMillis);
        int criticalRefused = critical.surgeOutcomes().get(Outcome.REFUSED);
        assertThat(sheddable.surgeOutcomes().get(Outcome.REFUSED)).as("priorities: the sheddable requests take the"
                + " refusals\n" + report).isGreaterThan(10 * Math.max(1, criticalRefused));

        RunResult flat = runs.get("shed critical");
        assertThat(flat.surgeOutcomes().get(Outcome.REFUSED)).as("without priorities the critical requests are refused"
                + " too\n" + report).isGreaterThan(critical.surgeOutcomes().get(Outcome.REFUSED));
        for (RunResult run : List.of(critical, sheddable, flat, runs.get("shed sheddable"))) {
            assertThat(run.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT) + run.surgeOutcomes().get(Outcome.ERROR))
                    .as(run.guard() + ": refuses rather than times out\n" + report).isZero();
        }
    }
}
