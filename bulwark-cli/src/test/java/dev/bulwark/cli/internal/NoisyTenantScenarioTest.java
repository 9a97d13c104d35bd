package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code simulate --tenants} with a capacity-bound downstream and an adaptive global limit, and the named
 * {@code --scenario noisy-tenant} with its quiet twin (docs/per-key.md, "One noisy tenant under an adaptive global
 * limit"; issue 41 item 3).
 */
class NoisyTenantScenarioTest {


    private static JsonNode json(String... args) throws Exception {
        Outcome outcome = run(args);
        assertThat(outcome.exitCode).as(outcome.err).isZero();
        return new ObjectMapper().readTree(outcome.out);
    }

    private static long othersRefused(JsonNode report) {
        long refused = 0;
        for (int tenant = 1; tenant < report.get("tenants").size(); tenant++) {
            for (JsonNode count : report.get("tenants").get(tenant).get("refused")) {
                refused += count.asLong();
            }
        }
        return refused;
    }

    @Test
    void tenantsTakeAnAdaptiveGlobalLimitOverADownstreamWithACapacity() throws Exception {
        // Refused before: "--tenants cannot be combined with --adaptive".
        JsonNode report = json("simulate", "--tenants", "2", "--rate", "600/s", "--service-time", "fixed:10ms",
                "--downstream-capacity", "8", "--adaptive", "self-tuning", "--global-limit", "64", "--limit", "64",
                "--duration", "5s", "--seed", "7", "--format", "json");

        assertThat(report.get("settings").get("adaptive").asText()).isEqualTo("self-tuning");
        assertThat(report.get("settings").get("downstreamCapacity").asInt()).isEqualTo(8);
        JsonNode limit = report.get("globalLimit");
        assertThat(limit.get("lowest").asInt()).isLessThan(limit.get("highest").asInt());
        assertThat(limit.get("mean").asDouble()).isBetween(4.0, 16.0);
        assertThat(report.get("downstreamPeakInFlight").asInt()).isLessThan(64);
    }

    @Test
    void theTextReportGivesTheGlobalLimitsRangeAndTheDownstream() {
        Outcome outcome = run("simulate", "--tenants", "2", "--rate", "300/s", "--downstream-capacity", "8",
                "--adaptive", "aimd", "--global-limit", "8", "--duration", "2s", "--seed", "7");

        assertThat(outcome.exitCode).as(outcome.err).isZero();
        assertThat(outcome.out).containsPattern("global aimd from 8, \\d+\\.\\.\\d+ \\(mean [0-9.]+\\)")
                .contains("Downstream: capacity 8, degradation 1; peak ");
        Outcome delay = run("simulate", "--tenants", "2", "--duration", "1s", "--seed", "7");
        assertThat(delay.out).contains("Downstream: a pure delay (no capacity)").contains("global 32, max wait");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--tenants 2 --adaptive self-tuning | --adaptive needs --downstream-capacity N with --tenants",
        "--tenants 2 --degradation 2 | --degradation needs --downstream-capacity N with --tenants",
        "--tenants 2 --min-limit 2 | --min-limit needs --adaptive",
        "--tenants 2 --downstream-capacity 8 --adaptive aimd --global-limit 2000 "
                + "| --global-limit (2000) is the starting limit and must lie within --min-limit 1",
        "--tenants 2 --scenario priority-surge | --tenants cannot be combined with --scenario priority-surge",
        "--scenario noisy-tenant --rate 10/s | --scenario cannot be combined with --rate",
        "--scenario noisy-tenant --duration 5s | --scenario cannot be combined with --duration",
        "--scenario noisy-tenant --noisy-tenant 3 | --scenario cannot be combined with --noisy-tenant",
        "--scenario noisy-tenant-quiet --tenants 1 | --scenario noisy-tenant-quiet needs at least 2 --tenants",
        "--scenario noisy-tenant --timeout 1s | --scenario noisy-tenant cannot be combined with --timeout",
        "--scenario noisy | expected priority-surge, priority-surge-unloaded, noisy-tenant or noisy-tenant-quiet"})
    void badCombinationsAreRefusedNamingTheOption(String args, String message) {
        Outcome outcome = run(("simulate " + args).split(" "));

        assertThat(outcome.exitCode).isNotZero();
        assertThat(outcome.err).contains(message);
        assertThat(outcome.out).isEmpty();
    }

    @Test
    void oneTenantAtTenTimesItsRateMovesTheOthersP99WaitByLessThanTenPercent() throws Exception {
        // The documented scenario scaled down to a downstream of 16 (half the calls, so half the time).
        JsonNode quiet = json("simulate", "--scenario", "noisy-tenant-quiet", "--downstream-capacity", "16",
                "--seed", "7", "--format", "json");
        JsonNode noisy = json("simulate", "--scenario", "noisy-tenant", "--downstream-capacity", "16",
                "--seed", "7", "--format", "json");

        assertThat(noisy.get("settings").get("adaptive").asText()).isEqualTo("self-tuning");
        assertThat(noisy.get("settings").get("limitPerTenant").asInt()).as("its share of 16").isEqualTo(4);
        assertThat(noisy.get("settings").get("globalLimit").asInt()).as("starts at the capacity").isEqualTo(16);
        assertThat(noisy.get("settings").get("durationMs").asDouble()).isEqualTo(60_000.0);
        assertThat(noisy.get("settings").get("noisyFactor").asDouble()).isEqualTo(10.0);
        assertThat(quiet.get("settings").get("noisyFactor").asDouble()).isEqualTo(1.0);
        double baseline = quiet.get("othersP99WaitMs").asDouble();
        assertThat(baseline).isPositive();
        assertThat(noisy.get("othersP99WaitMs").asDouble()).isLessThanOrEqualTo(1.10 * baseline);
        // The noisy tenant absorbs the refusals; the downstream never holds more than its capacity.
        long noisyRefused = 0;
        for (JsonNode count : noisy.get("tenants").get(0).get("refused")) {
            noisyRefused += count.asLong();
        }
        assertThat(noisyRefused).isGreaterThan(100 * othersRefused(noisy));
        assertThat(noisy.get("downstreamPeakInFlight").asInt()).isLessThanOrEqualTo(16);
    }
}
