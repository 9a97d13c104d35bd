package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import org.junit.jupiter.api.Test;

/**
 * {@code selfTuning()} on the grid's heavy-tailed scenarios, which it lost before it judged such latencies by their
 * geometric mean and drops by the share the resource drops anyway: 50%, 56% and 54% of the oracle's goodput on
 * seeds 1 to 5 (worst seeds 37%, 22%, 44%), as its limit ratcheted down to half the capacity and below.
 */
class HeavyTailsCompareTest {

    @Test
    void selfTuningHoldsNearTheOracleOnHeavyTailedLatenciesAndSteadyDrops() throws Exception {
        Outcome outcome = run("compare", "--scenario", "grid-mix-50x-1,grid-mix-50x-10,grid-lognormal-s2",
                "--seeds", "3", "--duration", "20s", "--format", "json", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        for (JsonNode scenario : new ObjectMapper().readTree(outcome.out).get("scenarios")) {
            JsonNode selfTuning = null;
            for (JsonNode limiter : scenario.get("limiters")) {
                if (limiter.get("name").asText().equals("bulwark selfTuning()")) {
                    selfTuning = limiter;
                }
            }
            assertThat(selfTuning).as(scenario.get("name").asText()).isNotNull();
            assertThat(selfTuning.get("meanShareOfOracle").asDouble()).as(scenario.get("name").asText())
                    .isGreaterThan(0.85);
            for (JsonNode share : selfTuning.get("shareOfOracle")) {
                assertThat(share.asDouble()).as(scenario.get("name").asText()).isGreaterThan(0.65);
            }
        }
    }
}
