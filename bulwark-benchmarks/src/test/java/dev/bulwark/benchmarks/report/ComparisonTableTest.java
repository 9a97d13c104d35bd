package dev.bulwark.benchmarks.report;

import static dev.bulwark.benchmarks.report.ReportFixtures.allPass;
import static dev.bulwark.benchmarks.report.ReportFixtures.failing;
import static dev.bulwark.benchmarks.report.ReportFixtures.measured;
import static dev.bulwark.benchmarks.report.ReportFixtures.results;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The table: ratios to the floor and to Bulwark, and no subject silently left out. */
class ComparisonTableTest {

    private final ResultsFile results = results(List.of(
                    measured(Scenario.UNCONTENDED, "semaphore", 8.0, 0.4, 0.0),
                    measured(Scenario.UNCONTENDED, "bulwark", 10.0, 0.5, 0.01),
                    measured(Scenario.UNCONTENDED, "resilience4j", 12.5, 1.0, 0.0),
                    measured(Scenario.HAND_OFF, "semaphore-fair", 1000, 300, 0),
                    measured(Scenario.HAND_OFF, "bulwark", 1500, 100, 16)),
            Map.of("semaphore", failing(Check.SYNC_FIFO, "the slot went to newcomer, waiter-1"),
                    "semaphore-fair", allPass(),
                    "bulwark", allPass(),
                    "resilience4j", allPass(),
                    "resilience4j-nostack", allPass(),
                    "failsafe", failing(Check.SYNC_LIMIT, "admitted only 1 of 2 | after the first refusal"),
                    "failsafe-permit", allPass()));

    private Row row(Scenario scenario, String subject) {
        return ComparisonTable.rows(results).stream()
                .filter(r -> r.scenario() == scenario && r.subject().equals(subject)).findFirst().orElseThrow();
    }

    @Test
    void ratiosAreToTheScenariosFloorAndToBulwark() {
        Row resilience4j = row(Scenario.UNCONTENDED, "resilience4j");

        assertThat(resilience4j.timesFloor()).isCloseTo(12.5 / 8.0, within(1e-9));
        assertThat(resilience4j.timesBulwark()).isCloseTo(1.25, within(1e-9));
        assertThat(row(Scenario.UNCONTENDED, "semaphore").note()).isEqualTo("floor");
    }

    @Test
    void theHandOffFloorIsTheFairSemaphoreAndFifoIsShown() {
        Row bulwark = row(Scenario.HAND_OFF, "bulwark");

        assertThat(bulwark.timesFloor()).isCloseTo(1.5, within(1e-9));
        assertThat(bulwark.note()).isEqualTo("FIFO");
        assertThat(row(Scenario.HAND_OFF, "semaphore").note()).contains("not FIFO: the slot went to newcomer");
    }

    @Test
    void everySubjectOfEveryScenarioHasARowEvenWhenNotMeasured() {
        List<Row> rows = ComparisonTable.rows(results);

        int expected = 0;
        for (Scenario scenario : Scenario.values()) {
            expected += scenario.subjects().size();
        }
        assertThat(rows).hasSize(expected);
        Row failsafe = row(Scenario.UNCONTENDED, "failsafe");
        assertThat(failsafe.measurement()).isEmpty();
        assertThat(failsafe.note()).startsWith("NOT MEASURED, fails conformance: SYNC_LIMIT");
        assertThat(Double.isNaN(failsafe.timesFloor())).isTrue();
        assertThat(row(Scenario.UNCONTENDED, "failsafe-permit").note())
                .isEqualTo("no result: the benchmark failed (see the run log)");
    }

    @Test
    void aScenarioThatWasNotRunSaysSoInsteadOfBlamingTheSubjects() {
        assertThat(row(Scenario.REJECTION, "bulwark").note()).isEqualTo("not run");
        assertThat(row(Scenario.REJECTION, "failsafe").note()).isEqualTo("not run");
    }

    @Test
    void theMarkdownTableHasOneLinePerRowAndEscapesPipes() {
        String markdown = ComparisonTable.markdown(results);

        assertThat(markdown).startsWith("| scenario | subject | time/op | ± error | B/op | × floor | × bulwark | "
                + "note |");
        assertThat(markdown).contains("| uncontended sync call, 1 thread | semaphore | 8.00 ns | 0.40 | 0 | 1.00× | "
                + "0.80× | floor |");
        assertThat(markdown).contains("|  | bulwark | 10.0 ns | 0.50 | 0 | 1.25× | 1.00× |  |");
        assertThat(markdown).contains("admitted only 1 of 2 \\| after the first refusal");
        long tableLines = markdown.lines().filter(line -> line.startsWith("|")).count();
        assertThat(tableLines).isEqualTo(ComparisonTable.rows(results).size() + 2);
    }

    @Test
    void theNoiseSentenceQuotesTheMedianAndTheWorstRow() {
        assertThat(ComparisonTable.noise(results)).isEqualTo("Noise: the 99.9% confidence interval is ±7% of the "
                + "score for the median row and ±30% for the worst (HandOffBenchmark.handOff, semaphore-fair); 1 of "
                + "5 rows are noisier than ±10%, so read differences smaller than the error columns as ties.");
    }

    @Test
    void aRunWithoutConfidenceIntervalsIsCalledASmokeTest() {
        ResultsFile smoke = results(List.of(measured(Scenario.UNCONTENDED, "bulwark", 10, Double.NaN, 0)),
                Map.of("bulwark", allPass()));

        assertThat(ComparisonTable.noise(smoke)).contains("smoke test");
        assertThat(ComparisonTable.markdown(smoke)).contains("| bulwark | 10.0 ns | n/a | 0 |");
    }

    @Test
    void numbersAreFormattedForReading() {
        assertThat(ComparisonTable.time(7.8123)).isEqualTo("7.81");
        assertThat(ComparisonTable.time(42.25)).isEqualTo("42.3");
        assertThat(ComparisonTable.time(1523.4)).isEqualTo("1\u2009523");
        assertThat(ComparisonTable.bytes(0.02)).isEqualTo("0");
        assertThat(ComparisonTable.bytes(1176.0)).isEqualTo("1\u2009176");
        assertThat(ComparisonTable.times(0.5)).isEqualTo("0.50×");
        assertThat(ComparisonTable.times(Double.NaN)).isEqualTo("—");
    }

    @Test
    void aVerdictWithoutDetailIsRefused() {
        org.assertj.core.api.Assertions.assertThatNullPointerException().isThrownBy(() -> new Verdict(true, null))
                .withMessage("detail");
    }
}
