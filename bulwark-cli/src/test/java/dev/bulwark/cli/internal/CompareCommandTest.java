package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bulwark compare} through the command line: short virtual runs, every output. */
class CompareCommandTest {

    @Test
    void jsonHasTheOracleAndEveryLimiterAsAShareOfIt() throws Exception {
        Outcome outcome = run("compare", "--scenario", "c6", "--seeds", "2", "--duration", "8s", "--format", "json",
                "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        JsonNode scenario = new ObjectMapper().readTree(outcome.out).at("/scenarios/0");
        assertThat(scenario.get("name").asText()).isEqualTo("c6");
        JsonNode limiters = scenario.get("limiters");
        assertThat(limiters.get(0).get("family").asText()).isEqualTo("oracle");
        assertThat(limiters.get(0).get("meanShareOfOracle").asDouble()).isEqualTo(1.0);
        assertThat(limiters.findValuesAsText("name")).contains("bulwark selfTuning()", "bulwark gradient()",
                "bulwark aimd()", "netflix Gradient2", "netflix Vegas", "netflix AIMD");
        for (JsonNode limiter : limiters) {
            assertThat(limiter.get("shareOfOracle").size()).isEqualTo(2);
            // The oracle is the best fixed limit on the mean; an adaptive limiter can beat it on one seed, but a
            // share far above 1 would mean the runs did not face the same calls.
            assertThat(limiter.get("meanShareOfOracle").asDouble()).isBetween(0.0, 1.3);
        }
        // The oracle found by the sweep lies near the capacity.
        assertThat(scenario.get("oracleLimit").asInt()).isBetween(4, 9);
    }

    @Test
    void theOraclesSensitivityIsEveryFixedLimitItsSweepRanAsAShareOfItsGoodput() throws Exception {
        String[] args = {"compare", "--scenario", "c6", "--seeds", "2", "--duration", "8s", "--progress", "off"};
        Outcome json = run(concat(args, "--format", "json"));

        assertThat(json.exitCode).isZero();
        JsonNode scenario = new ObjectMapper().readTree(json.out).at("/scenarios/0");
        int oracle = scenario.get("oracleLimit").asInt();
        JsonNode sweep = scenario.get("oracleSweep");
        java.util.List<Integer> limits = new java.util.ArrayList<>();
        for (JsonNode fixed : sweep) {
            limits.add(fixed.get("limit").asInt());
            JsonNode perSeed = fixed.get("shareOfOracle");
            assertThat(perSeed.size()).isEqualTo(2);
            // The oracle is the best of these on the mean, so none is above it.
            assertThat(fixed.get("meanShareOfOracle").asDouble()).isLessThanOrEqualTo(1.0);
            // The summary figures are those of the per-seed shares beside them.
            assertThat(fixed.get("meanShareOfOracle").asDouble())
                    .isCloseTo((perSeed.get(0).asDouble() + perSeed.get(1).asDouble()) / 2, within(1e-9));
            assertThat(fixed.get("worstShareOfOracle").asDouble())
                    .isEqualTo(Math.min(perSeed.get(0).asDouble(), perSeed.get(1).asDouble()));
        }
        // Every limit around the oracle's was run, in increasing order, the oracle's own at exactly 1.
        assertThat(limits).isSorted().contains(oracle - 1, oracle, oracle + 1);
        assertThat(sweep.get(limits.indexOf(oracle)).get("meanShareOfOracle").asDouble()).isEqualTo(1.0);
        // A limit chosen per seed with hindsight is at least the one chosen for all seeds.
        assertThat(scenario.get("bestPerSeedShareOfOracle").asDouble()).isGreaterThanOrEqualTo(1.0);

        Outcome text = run(args);
        assertThat(text.out).contains("oracle's sensitivity, fixed limits near it: ", oracle + " 100.0% (100.0%)",
                "each seed's own best fixed limit ");
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    @Test
    void bulwarksRowsAreTheSameEveryRun() {
        // Bulwark's limiters and the oracle are deterministic in virtual time (Netflix's Vegas draws random probe
        // jitter, so the whole report need not be).
        String[] args = {"compare", "--scenario", "c20-steps", "--seeds", "1", "--duration", "6s", "--progress",
            "off"};
        Outcome first = run(args);
        Outcome second = run(args);

        assertThat(bulwarkLines(second.out)).isEqualTo(bulwarkLines(first.out)).isNotEmpty();
        assertThat(first.out).contains("settle");
    }

    @Test
    void firstSeedRunsHeldOutSeeds() throws Exception {
        Outcome outcome = run("compare", "--scenario", "c6", "--seeds", "2", "--first-seed", "6", "--duration", "4s",
                "--format", "json", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        JsonNode seeds = new ObjectMapper().readTree(outcome.out).get("seeds");
        assertThat(seeds.size()).isEqualTo(2);
        assertThat(seeds.get(0).asLong()).isEqualTo(6L);
        assertThat(seeds.get(1).asLong()).isEqualTo(7L);
    }

    private static java.util.List<String> bulwarkLines(String report) {
        return report.lines().filter(line -> line.contains("bulwark") || line.contains("oracle"))
                .collect(java.util.stream.Collectors.toList());
    }

    @Test
    void htmlChartsEachLimitersLimitAndGoodputPerScenario(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("compare.html");
        Outcome outcome = run("compare", "--scenario", "c6,c20-start60", "--seeds", "1", "--duration", "5s",
                "--progress", "off", "--report", page.toString());

        assertThat(outcome.exitCode).isZero();
        String html = Files.readString(page);
        assertThat(html).startsWith("<!DOCTYPE html>").contains("Limit over time, c6", "Goodput over time, c6",
                "Limit over time, c20-start60", "netflix Gradient2", "bulwark selfTuning()");
        // Per scenario: one chart of every limit, and a small multiple of goodput per limiter (7).
        assertThat(html.split("<svg ", -1).length - 1).isEqualTo(16);
        // And under each scenario's table, the oracle's sensitivity.
        assertThat(html.split("sensitivity, fixed limits near it: ", -1).length - 1).isEqualTo(2);
        assertThat(html.toLowerCase(java.util.Locale.ROOT)).doesNotContain("<script").doesNotContain("http://")
                .doesNotContain("https://");
    }

    @Test
    void anUnknownScenarioIsRefusedNamingTheKnownOnes() {
        Outcome outcome = run("compare", "--scenario", "c99");

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err).contains("unknown scenario 'c99'", "c20-start5", "c6");
    }

    @Test
    void selfTuningIsAnAdaptiveChoiceOfSimulate() throws Exception {
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "5s", "--adaptive", "self-tuning",
                "--limit", "5", "--downstream-capacity", "20", "--rate", "1500/s", "--queue", "0", "--format",
                "json", "--progress", "off", "--seed", "3");

        assertThat(outcome.exitCode).isZero();
        JsonNode json = new ObjectMapper().readTree(outcome.out);
        assertThat(json.at("/settings/bulkhead/adaptive/algorithm").asText()).isEqualTo("self-tuning");
        assertThat(json.at("/peakInFlight").asInt()).isLessThanOrEqualTo(60);
    }

    @Test
    void gridRunsTheFamilyAndCannotBeCombinedWithScenario() {
        Outcome outcome = run("compare", "--grid", "--scenario", "c6");

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err).contains("--grid cannot be combined with --scenario");
        assertThat(run("compare", "--help").out).contains("--grid", "grid-mix-50x-10", "grid-step-down-4x");
    }

    @Test
    void aGridScenarioRunsByName() throws Exception {
        Outcome outcome = run("compare", "--scenario", "grid-c2", "--seeds", "1", "--duration", "3s", "--format",
                "json", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        JsonNode scenario = new ObjectMapper().readTree(outcome.out).at("/scenarios/0");
        assertThat(scenario.get("name").asText()).isEqualTo("grid-c2");
        assertThat(scenario.get("oracleLimit").asInt()).isBetween(1, 4);
    }
}
