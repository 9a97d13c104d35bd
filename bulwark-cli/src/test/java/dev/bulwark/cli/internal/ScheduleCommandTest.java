package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code simulate --schedule} (issue 41 item 3): bad input names the flag, the arrivals follow the schedule, each
 * lane sets its calls' priority, and the priority surge in virtual time, scaled down to stay fast: critical traffic
 * at half a downstream of 8's capacity (400 calls/s of 20 ms) throughout, sheddable traffic at a quarter of it
 * except for a 10 s surge to 12x, with {@code selfTuning()} and priorities. docs/adaptive.md has the full-size run
 * and its figures; the floors here are what this seed measured, less a margin.
 */
class ScheduleCommandTest {

    private static final String SURGE = "critical: 0.5x for 20s; sheddable: 0.25x for 5s, 12x for 10s, 0.25x for 5s";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String[] args(String... extra) {
        List<String> all = new ArrayList<>(List.of("simulate", "--virtual-time", "--progress", "off"));
        all.addAll(List.of(extra));
        return all.toArray(new String[0]);
    }

    /** The scaled-down surge: a downstream of 8 (400 calls/s of 20 ms), self-tuning, a seed. */
    private static String[] surge(String... extra) {
        List<String> all = new ArrayList<>(List.of("--rate", "400/s", "--downstream-capacity", "8", "--limit", "8",
                "--adaptive", "self-tuning", "--seed", "7", "--schedule", SURGE));
        all.addAll(List.of(extra));
        return args(all.toArray(new String[0]));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "\"800/s\"                         | --schedule: '800/s' is not a phase; expected 'RATE for DURATION'",
        "\"800/s for 0s\"                  | --schedule: '800/s for 0s' lasts no time",
        "\"fast for 10s\"                  | --schedule: expected a rate such as 2000/s",
        "\"-2x for 10s\"                   | --schedule: '-2x' is not a multiple of --rate",
        "\"1x for 10s, 2x for soon\"       | --schedule: expected a duration such as 20ms",
        "\"urgent: 1x for 10s\"            | --schedule: 'urgent' is not a priority (critical, high, normal",
        "\"critical: 1x for 10s; sheddable: 1x for 5s\" | --schedule: every lane must last as long as the first (10s)",
        "\"critical: 1x for 10s; critical: 1x for 10s\" | --schedule: the priority critical has two lanes",
        "\"1x for 10s; sheddable: 1x for 10s\" | --schedule: with several lanes every lane needs a priority",
        "\"1x for 10s; 2x for 10s\"        | --schedule: with several lanes every lane needs a priority",
        "\"0 for 10s\"                     | --schedule: no call would ever arrive",
        "\"1x..2x..3x for 10s\"            | --schedule: '1x..2x..3x' is not a rate or a ramp",
    })
    void badSchedulesAreOneLineNamingTheFlag(String schedule, String expected) {
        Outcome outcome = run(args("--schedule", schedule));

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err.lines()).hasSize(1);
        assertThat(outcome.err).contains(expected).doesNotContain("Exception");
        assertThat(outcome.out).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--duration,10s              | --schedule cannot be combined with --duration: the run lasts as long as",
        "--clients,10                | --schedule cannot be combined with --clients",
        "--tenants,2                 | --tenants cannot be combined with --schedule",
        "--priority-mix,normal:100%  | --schedule with a lane per priority cannot be combined with --priority-mix",
        "--scenario,priority-surge   | --scenario cannot be combined with --schedule: the scenario sets the arrivals",
    })
    void contradictoryOptionsAreRefused(String options, String expected) {
        List<String> all = new ArrayList<>(List.of(options.trim().split(",")));
        all.addAll(List.of("--schedule", "critical: 100/s for 1s; sheddable: 100/s for 1s"));
        Outcome outcome = run(args(all.toArray(new String[0])));

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err).contains(expected);
    }

    @Test
    void arrivalsFollowTheScheduleAndRampsAndTheRunLastsAsLongAsIt() throws Exception {
        // 1000/s for 2 s, a ramp from 1000/s to 5000/s over 2 s (6000 calls), 0 for 1 s, 2000/s for 1 s.
        Outcome outcome = run(args("--rate", "1000/s", "--seed", "3", "--no-bulkhead", "--format", "json",
                "--schedule", "1x for 2s, 1x..5x for 2s, 0 for 1s, 2000/s for 1s"));

        assertThat(outcome.exitCode).isZero();
        JsonNode report = JSON.readTree(outcome.out);
        assertThat(report.get("settings").get("durationMs").asDouble()).isEqualTo(6000.0);
        assertThat(report.get("settings").get("arrivals").get("schedule").asText())
                .isEqualTo("1000/s for 2s, 1000/s..5000/s for 2s, 0/s for 1s, 2000/s for 1s");
        // Cumulative arrivals at the end of each period: Poisson counts, within 5 standard deviations.
        assertPoisson(arrivalsAt(report, 2000), 2000);
        assertPoisson(arrivalsAt(report, 4000) - arrivalsAt(report, 2000), 6000);
        // The ramp rises: its second second has more arrivals than its first (expected 3500 against 2500).
        assertThat(arrivalsAt(report, 4000) - arrivalsAt(report, 3000))
                .isGreaterThan(arrivalsAt(report, 3000) - arrivalsAt(report, 2000) + 500);
        assertThat(arrivalsAt(report, 5000)).isEqualTo(arrivalsAt(report, 4000));
        assertPoisson(arrivalsAt(report, 6000) - arrivalsAt(report, 5000), 2000);
    }

    /** A Poisson count of the given mean, within 5 standard deviations. */
    private static void assertPoisson(long actual, double mean) {
        assertThat((double) actual).isCloseTo(mean, within(5 * Math.sqrt(mean)));
    }

    private static long arrivalsAt(JsonNode report, double elapsedMs) {
        long arrivals = 0;
        for (JsonNode sample : report.get("timeline")) {
            if (sample.get("elapsedMs").asDouble() <= elapsedMs + 1e-6) {
                arrivals = sample.get("arrivals").asLong();
            }
        }
        return arrivals;
    }

    @Test
    void realTimeRunsTheSameArrivalsAsVirtualTimeForASeed() throws Exception {
        // The seed fixes the arrivals in both modes, so the counts per lane are equal; only the timing differs.
        String[] schedule = {"--rate", "100/s", "--seed", "6", "--limit", "1000", "--format", "json", "--schedule",
            "critical: 1x for 1s; sheddable: 0 for 0.5s, 2x..6x for 0.5s"};
        List<String> real = new ArrayList<>(List.of("simulate", "--progress", "off"));
        real.addAll(List.of(schedule));
        Outcome inRealTime = run(real.toArray(new String[0]));
        Outcome inVirtualTime = run(args(schedule));

        assertThat(inRealTime.exitCode).isZero();
        JsonNode realReport = JSON.readTree(inRealTime.out);
        JsonNode virtualReport = JSON.readTree(inVirtualTime.out);
        for (String priority : new String[] {"critical", "sheddable"}) {
            assertThat(row(realReport, priority).get("offered").asLong()).isPositive()
                    .isEqualTo(row(virtualReport, priority).get("offered").asLong());
        }
    }

    @Test
    void eachLaneSetsItsCallsPriorityAtItsOwnRate() throws Exception {
        Outcome outcome = run(args("--rate", "100/s", "--seed", "4", "--limit", "1000", "--format", "json",
                "--schedule", "critical: 2x for 10s; sheddable: 0 for 5s, 10x for 5s"));

        assertThat(outcome.exitCode).isZero();
        JsonNode report = JSON.readTree(outcome.out);
        JsonNode critical = row(report, "critical");
        JsonNode sheddable = row(report, "sheddable");
        assertPoisson(critical.get("offered").asLong(), 2000);
        assertPoisson(sheddable.get("offered").asLong(), 5000);
        // No sheddable call in the first 5 s: the arrivals then are all critical, about 200 per second.
        assertPoisson(arrivalsAt(report, 5000), 1000);
        assertThat(report.get("settings").get("priorityMix").asText())
                .isEqualTo("critical:28.6%,sheddable:71.4% (from --schedule)");
    }

    private static JsonNode row(JsonNode report, String priority) {
        for (JsonNode row : report.get("byPriority")) {
            if (row.get("priority").asText().equals(priority)) {
                return row;
            }
        }
        throw new AssertionError("no row for " + priority + " in " + report.get("byPriority"));
    }

    @Test
    void throughASurgeCriticalCallsSucceedAndSheddableOnesAbsorbTheRefusals() throws Exception {
        Outcome outcome = run(surge("--format", "json"));

        assertThat(outcome.exitCode).isZero();
        JsonNode report = JSON.readTree(outcome.out);
        JsonNode critical = row(report, "critical");
        JsonNode sheddable = row(report, "sheddable");
        long criticalRefused = critical.get("offered").asLong() - critical.get("outcomes").get("completed").asLong();
        long sheddableRefused = sheddable.get("offered").asLong()
                - sheddable.get("outcomes").get("completed").asLong();
        // Measured with this seed: critical 97.5 %, sheddable 5.0 % (issue 41's goal of 99.5 % is not met; see
        // docs/adaptive.md). The floor guards against a regression, not the goal.
        assertThat(critical.get("successShare").asDouble()).isGreaterThanOrEqualTo(0.97);
        assertThat(sheddableRefused).isGreaterThan(100 * criticalRefused);
        assertThat(critical.get("outcomes").get("rejectedEvicted").asLong()).isZero();
        assertThat(critical.get("outcomes").get("rejectedQueueFull").asLong()).isZero();
    }

    @Test
    void aNamedScenarioIsAScheduleInMultiplesOfTheCapacityWithSelfTuning() {
        // A downstream of 2 calls of 20 ms serves 100 calls/s: critical 50/s, sheddable 25/s.
        Outcome outcome = run(args("--scenario", "priority-surge-unloaded", "--downstream-capacity", "2", "--limit",
                "2", "--seed", "1"));

        assertThat(outcome.exitCode).isZero();
        assertThat(outcome.out).contains("2m of Poisson arrivals on the schedule critical: 50/s for 2m; sheddable: "
                + "25/s for 2m, seed 1", "adaptive limit (self-tuning");
        Outcome unknown = run(args("--scenario", "surge"));
        assertThat(unknown.exitCode).isEqualTo(2);
        assertThat(unknown.err).contains("--scenario: unknown scenario 'surge'; expected priority-surge, "
                + "priority-surge-unloaded, noisy-tenant or noisy-tenant-quiet");
        Outcome withRate = run(args("--scenario", "priority-surge", "--rate", "10/s"));
        assertThat(withRate.err).contains("--scenario cannot be combined with --rate");
    }

    @Test
    void theSameSeedGivesTheSameReportByteForByteWithATableOfThePeriods() {
        String[] args = args("--rate", "100/s", "--seed", "4", "--adaptive", "self-tuning", "--schedule",
                "critical: 2x for 4s; sheddable: 0 for 1s, 5x..20x for 2s, 1x for 1s");
        Outcome first = run(args);
        Outcome second = run(args);

        assertThat(first.exitCode).isZero();
        assertThat(second.out).isEqualTo(first.out);
        assertThat(first.out).contains("4s of Poisson arrivals on the schedule critical: 200/s for 4s; sheddable: "
                + "0/s for 1s, 500/s..2000/s for 2s, 100/s for 1s, seed 4",
                "By period (s)", "  0ms-1s ", "  1s-3s ", "  3s-4s ", "e2e p99");
    }
}
