package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code simulate --priority-mix}, {@code --weights} and {@code --reserve} (issue 16 item 5): bad input, the
 * per-class outcomes in every format, determinism in virtual time, and the property the docs show: at 2x overload
 * critical calls keep at least 99 % success while sheddable ones absorb the refusals.
 */
class PriorityMixCommandTest {

    private static final String MIX = "critical:20%,normal:50%,sheddable:30%";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String[] args(String... extra) {
        List<String> all = new ArrayList<>(List.of("simulate", "--virtual-time", "--progress", "off"));
        all.addAll(List.of(extra));
        return all.toArray(new String[0]);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "--priority-mix critical:20%,normal:50%         | --priority-mix: the shares must add up to 100% "
                + "but add up to 70%, got 'critical:20%,normal:50%'",
        "--priority-mix critical:60%,normal:50%         | --priority-mix: the shares must add up to 100% "
                + "but add up to 110%",
        "--priority-mix urgent:50%,normal:50%           | --priority-mix: unknown priority 'urgent'; "
                + "expected critical, high, normal, low or sheddable",
        "--priority-mix critical:50,normal:50%          | --priority-mix: expected VALUE:SHARE%[,VALUE:SHARE%...] "
                + "such as critical:20%,normal:50%,sheddable:30%",
        "--priority-mix critical:0%,normal:100%         | --priority-mix: share of critical must be more than 0% and "
                + "at most 100%, got '0%'",
        "--priority-mix normal:50%,NORMAL:50%           | --priority-mix: NORMAL is given twice",
        "--weights 1:70%,2:20%                          | --weights: the shares must add up to 100% but add up to 90%",
        "--weights 0:100%                               | --weights: weight '0' is not a whole number of at least 1",
        "--weights 1:50%,40:50%                         | --weights: weight 40 is above --limit 32; "
                + "such a call could never run",
        "--weights 1:50%,4:50% --adaptive aimd --min-limit 2 --limit 8 | --weights: weight 4 is above --min-limit 2",
        "--reserve critical                             | --reserve: expected PRIORITY:SLOTS[,PRIORITY:SLOTS...] "
                + "such as critical:2,high:1",
        "--reserve sheddable:2                          | --reserve: sheddable cannot have a reserve",
        "--reserve critical:0                           | --reserve: slots of critical must be a whole number of "
                + "at least 1, got '0'",
        "--reserve vip:1                                | --reserve: unknown priority 'vip'",
        "--reserve critical:20,high:12                  | --reserve: the reserves add up to 32 slots; "
                + "they must stay below --limit 32",
        "--reserve critical:2 --adaptive aimd --min-limit 2 --limit 8 | --reserve: the reserves add up to 2 slots; "
                + "they must stay below --min-limit 2",
        "--reserve critical:2 --weights 1:50%,31:50%    | --weights: weight 31 is above --limit 32 less the 2 slots "
                + "reserved above the lowest priority; such a call could never run",
        "--no-bulkhead --priority-mix normal:100%       | --no-bulkhead cannot be combined with --priority-mix",
        "--no-bulkhead --weights 2:100%                 | --no-bulkhead cannot be combined with --weights",
    })
    void badInputIsOneLineNamingTheOption(String options, String expected) {
        Outcome outcome = run(args(options.trim().split("\\s+")));

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err.lines()).hasSize(1);
        assertThat(outcome.err).contains(expected).doesNotContain("Exception");
        assertThat(outcome.out).isEmpty();
    }

    @Test
    void aWeightTheReservesWouldHoldBackIsFineWhenOnlyTheReservedPriorityIsDrawn() {
        Outcome outcome = run(args("--duration", "1s", "--reserve", "critical:2", "--weights", "31:100%",
                "--priority-mix", "critical:100%"));

        assertThat(outcome.err).isEmpty();
        assertThat(outcome.exitCode).isZero();
    }

    @Test
    void priorityNamesAreCaseInsensitiveAndSharesMayBeDecimals() {
        Outcome outcome = run(args("--duration", "1s", "--priority-mix", "CRITICAL:33.3%,Normal:33.3%,low:33.4%"));

        assertThat(outcome.exitCode).isZero();
        assertThat(outcome.out).contains("  critical ", "  normal ", "  low ");
    }

    @Test
    void atTwiceTheLimitCriticalCallsSucceedAndSheddableOnesAbsorbTheRefusals() throws Exception {
        // 3200 calls/s of 20 ms: 64 calls' worth against a bulkhead of 32 (and a downstream of 32), 2x overload.
        Outcome outcome = run(args("--rate", "3200/s", "--seed", "42", "--priority-mix", MIX, "--format", "json"));

        assertThat(outcome.exitCode).isZero();
        JsonNode report = JSON.readTree(outcome.out);
        JsonNode critical = row(report.get("byPriority"), "priority", "critical");
        JsonNode normal = row(report.get("byPriority"), "priority", "normal");
        JsonNode sheddable = row(report.get("byPriority"), "priority", "sheddable");
        assertThat(critical.get("successShare").asDouble()).isGreaterThanOrEqualTo(0.99);
        long refused = report.get("outcomes").get("arrivals").asLong()
                - report.get("outcomes").get("completed").asLong();
        long sheddableRefused = sheddable.get("offered").asLong() - sheddable.get("outcomes").get("completed").asLong();
        long normalRefused = normal.get("offered").asLong() - normal.get("outcomes").get("completed").asLong();
        // Sheddable calls are 30 % of the offer but take most of the ~50 % that must be refused, and more than
        // their share of it: normal ones are refused only once sheddable ones cannot absorb any more.
        assertThat(sheddable.get("successShare").asDouble()).isLessThan(0.05);
        assertThat(sheddableRefused).isGreaterThan(normalRefused);
        assertThat(sheddableRefused + normalRefused).isGreaterThanOrEqualTo((long) (0.99 * refused));
        // The eviction is visible: sheddable waiters made room for critical and normal newcomers.
        assertThat(sheddable.get("outcomes").get("rejectedEvicted").asLong()).isPositive();
        assertThat(critical.get("outcomes").get("rejectedEvicted").asLong()).isZero();
        // Every class's rows add up to the run's totals.
        long offered = 0;
        long completed = 0;
        for (JsonNode row : report.get("byPriority")) {
            offered += row.get("offered").asLong();
            completed += row.get("outcomes").get("completed").asLong();
            assertThat(row.get("admitted").asLong()).isEqualTo(row.get("outcomes").get("completed").asLong());
        }
        assertThat(offered).isEqualTo(report.get("outcomes").get("arrivals").asLong());
        assertThat(completed).isEqualTo(report.get("outcomes").get("completed").asLong());
        assertThat(report.get("settings").get("priorityMix").asText()).isEqualTo(MIX);
        assertThat(report.get("byWeight").isNull()).isTrue();
    }

    @Test
    void withoutAPriorityMixTheReportHasNoPriorityRowsAndNobodyIsEvicted() throws Exception {
        // The control: the same 2x overload without priorities; FIFO with one priority never evicts.
        JsonNode report = JSON.readTree(run(args("--rate", "3200/s", "--seed", "42", "--format", "json")).out);

        assertThat(report.get("byPriority").isNull()).isTrue();
        assertThat(report.get("settings").get("priorityMix").isNull()).isTrue();
        assertThat(report.get("outcomes").get("rejectedEvicted").asLong()).isZero();
    }

    @Test
    void theSameSeedGivesTheSameReportByteForByte() {
        String[] args = args("--rate", "3000/s", "--seed", "9", "--priority-mix", MIX, "--weights", "1:70%,2:20%,4:10%",
                "--reserve", "critical:2", "--duration", "3s");

        Outcome first = run(args);
        Outcome second = run(args);

        assertThat(first.exitCode).isZero();
        assertThat(second.out).isEqualTo(first.out);
        assertThat(first.out).contains("By priority", "By weight",
                "calls       priorities " + MIX + "; weights 1:70%,2:20%,4:10%; reserve critical:2");
        Outcome otherSeed = run(args("--rate", "3000/s", "--seed", "10", "--priority-mix", MIX, "--weights",
                "1:70%,2:20%,4:10%", "--reserve", "critical:2", "--duration", "3s"));
        assertThat(otherSeed.out).isNotEqualTo(first.out);
    }

    @Test
    void weightsAreDrawnInTheirSharesAndHeavyCallsTakeTheirSlots() throws Exception {
        JsonNode report = JSON.readTree(run(args("--rate", "1000/s", "--seed", "5", "--weights", "1:70%,2:20%,4:10%",
                "--format", "json")).out);

        JsonNode rows = report.get("byWeight");
        assertThat(rows).hasSize(3);
        long arrivals = report.get("outcomes").get("arrivals").asLong();
        double[] expected = {0.70, 0.20, 0.10};
        int[] weights = {1, 2, 4};
        long weightedAdmitted = 0;
        for (int i = 0; i < 3; i++) {
            assertThat(rows.get(i).get("weight").asInt()).isEqualTo(weights[i]);
            assertThat((double) rows.get(i).get("offered").asLong() / arrivals)
                    .isBetween(expected[i] - 0.02, expected[i] + 0.02);
            weightedAdmitted += weights[i] * rows.get(i).get("admitted").asLong();
        }
        // 1000/s of 20 ms is 20 calls but 28 slots' worth (mean weight 1.4) against a limit of 32: nearly everyone
        // is served, and the slots the calls took add up to more than the calls.
        assertThat(weightedAdmitted).isGreaterThan((long) (1.3 * report.get("outcomes").get("completed").asLong()));
        assertThat(report.get("byPriority").isNull()).isTrue();
    }

    @Test
    void theHtmlReportHasATablePerClass(@TempDir Path directory) throws Exception {
        Path html = directory.resolve("run.html");

        Outcome outcome = run(args("--duration", "2s", "--rate", "3200/s", "--priority-mix", MIX, "--weights",
                "1:90%,3:10%", "--report", html.toString()));

        assertThat(outcome.exitCode).isZero();
        String page = Files.readString(html);
        assertThat(page).contains("<h2>Outcomes by priority</h2>", "<h2>Outcomes by weight</h2>",
                "<td>critical</td>", "<td>sheddable</td>", "<th>rejected, evicted</th>", "<td>3</td>",
                "priorities " + MIX);
    }

    @Test
    void realThreadsMakeTheCallsWithTheirOptionsToo() throws Exception {
        JsonNode report = JSON.readTree(run("simulate", "--threads", "--duration", "300ms", "--drain", "1s",
                "--rate", "2000/s", "--priority-mix", MIX, "--weights", "1:80%,2:20%", "--format", "json",
                "--progress", "off").out);

        long offered = 0;
        long ended = 0;
        for (JsonNode row : report.get("byPriority")) {
            offered += row.get("offered").asLong();
            JsonNode outcomes = row.get("outcomes");
            ended += outcomes.get("completed").asLong() + outcomes.get("rejectedQueueFull").asLong()
                    + outcomes.get("rejectedWaitTimeout").asLong() + outcomes.get("rejectedEvicted").asLong()
                    + outcomes.get("timedOut").asLong() + outcomes.get("cancelled").asLong();
            assertThat(outcomes.get("failed").asLong()).isZero();
        }
        assertThat(offered).isEqualTo(report.get("outcomes").get("arrivals").asLong()).isPositive();
        assertThat(ended).isEqualTo(offered);
        assertThat(report.get("unexpectedFailure").isNull()).isTrue();
    }

    @Test
    void helpDocumentsTheOptions() {
        String help = run("simulate", "--help").out;

        assertThat(help).contains("--priority-mix=MIX", "critical:20%,normal:50%,sheddable:30%", "--weights=MIX",
                "1:70%,2:20%,4:10%", "--reserve=PRIORITY:SLOTS").doesNotContain("Could not format");
    }

    private static JsonNode row(JsonNode rows, String field, String value) {
        for (JsonNode row : rows) {
            if (row.get(field).asText().equals(value)) {
                return row;
            }
        }
        throw new AssertionError("no row " + value + " in " + rows);
    }
}
