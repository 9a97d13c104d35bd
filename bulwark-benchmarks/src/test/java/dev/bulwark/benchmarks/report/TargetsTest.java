package dev.bulwark.benchmarks.report;

import static dev.bulwark.benchmarks.report.ReportFixtures.allPass;
import static dev.bulwark.benchmarks.report.ReportFixtures.failing;
import static dev.bulwark.benchmarks.report.ReportFixtures.measured;
import static dev.bulwark.benchmarks.report.ReportFixtures.results;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.benchmarks.conformance.Check;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue #4's targets, judged side by side; a missing figure is unknown, never met. */
class TargetsTest {

    private static Target find(List<Target> targets, String start) {
        return targets.stream().filter(t -> t.description().startsWith(start)).findFirst().orElseThrow();
    }

    @Test
    void judgesEachTargetFromItsRatio() {
        ResultsFile results = results(List.of(
                        measured(Scenario.UNCONTENDED, "semaphore", 8.0, 0.1, 0),
                        measured(Scenario.UNCONTENDED, "bulwark", 10.0, 0.1, 0),
                        measured(Scenario.UNCONTENDED, "resilience4j", 9.5, 0.1, 0),
                        measured(Scenario.REJECTION, "bulwark", 10.0, 0.1, 0),
                        measured(Scenario.REJECTION, "resilience4j-nostack", 177.0, 3, 496),
                        measured(Scenario.HAND_OFF, "bulwark", 2100, 10, 0),
                        measured(Scenario.HAND_OFF, "semaphore-fair", 1000, 10, 0),
                        measured(Scenario.ASYNC, "bulwark", 12, 0.1, 48.0)),
                Map.of("bulwark", failing(Check.ASYNC_WAIT, "a call that must wait blocked its thread")));

        List<Target> targets = Targets.judge(results);

        assertThat(targets).hasSize(12);
        assertThat(find(targets, "uncontended sync call ≤ 1.3×").status()).isEqualTo(Target.Status.MET);
        assertThat(find(targets, "uncontended sync call ≤ 1.3×").figure())
                .isEqualTo("bulwark 10.0 ± 0.10 vs semaphore 8.00 ± 0.10 ns/op = 1.25×");
        assertThat(find(targets, "uncontended sync call allocates").status()).isEqualTo(Target.Status.MET);
        assertThat(find(targets, "uncontended sync call not slower").status()).isEqualTo(Target.Status.MISSED);
        assertThat(find(targets, "rejection carries no stack trace").status()).isEqualTo(Target.Status.MET);
        assertThat(find(targets, "rejection ≤ 1/10").status()).isEqualTo(Target.Status.MET);
        assertThat(find(targets, "contended sync call, 2 threads").status()).isEqualTo(Target.Status.UNKNOWN);
        assertThat(find(targets, "hand-off keeps strict FIFO").status()).isEqualTo(Target.Status.MET);
        assertThat(find(targets, "hand-off within 2×").status()).isEqualTo(Target.Status.MISSED);
        assertThat(find(targets, "a waiting async call holds no thread").status()).isEqualTo(Target.Status.MISSED);
        assertThat(find(targets, "async fast path allocates").status()).isEqualTo(Target.Status.MET);
    }

    @Test
    void withoutFiguresEveryMeasuredTargetIsUnknown() {
        List<Target> targets = Targets.judge(results(List.of(), Map.of("bulwark", allPass())));

        assertThat(targets).filteredOn(t -> t.status() == Target.Status.UNKNOWN).hasSize(9);
        assertThat(Targets.markdown(targets)).contains("- **UNKNOWN** uncontended sync call ≤ 1.3× the raw semaphore: "
                + "not measured in this run");
    }
}
