package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import org.junit.jupiter.api.Test;

/**
 * {@code bulwark simulate --tenants N}: the noisy-tenant run of docs/per-key.md, its report formats and its bad
 * input.
 */
class TenantSimulateCommandTest {

    private static final String[] SCENARIO = {"simulate", "--tenants", "4", "--rate", "300/s", "--limit", "8",
        "--noisy-limit", "40", "--global-limit", "40", "--seed", "7", "--duration", "20s", "--format", "json"};


    private static JsonNode json(String... extra) throws Exception {
        String[] args = new String[SCENARIO.length + extra.length];
        System.arraycopy(SCENARIO, 0, args, 0, SCENARIO.length);
        System.arraycopy(extra, 0, args, SCENARIO.length, extra.length);
        Outcome outcome = run(args);
        assertThat(outcome.exitCode).as(outcome.err).isZero();
        return new ObjectMapper().readTree(outcome.out);
    }

    @Test
    void withFairSharesTheOtherTenantsKeepTheirWaitsWhenOneTenantSendsTenTimesItsShare() throws Exception {
        JsonNode quiet = json("--noisy-tenant", "1");
        JsonNode noisy = json("--noisy-tenant", "10");
        JsonNode fifo = json("--noisy-tenant", "10", "--global-fifo");

        double baseline = quiet.get("othersP99WaitMs").asDouble();
        assertThat(baseline).isPositive();
        assertThat(noisy.get("othersP99WaitMs").asDouble()).isLessThanOrEqualTo(1.10 * baseline);
        for (int tenant = 1; tenant < 4; tenant++) {
            assertThat(noisy.get("tenants").get(tenant).get("served").asLong())
                    .isEqualTo(noisy.get("tenants").get(tenant).get("calls").asLong());
        }
        assertThat(noisy.get("tenants").get(0).get("refused").get("QUEUE_FULL").asLong()).isPositive();
        assertThat(fifo.get("othersP99WaitMs").asDouble()).as("global FIFO lets the noisy tenant in first")
                .isGreaterThan(2 * baseline);
        assertThat(fifo.get("settings").get("sharing").asText()).isEqualTo("global-fifo");
    }

    @Test
    void theSameSeedGivesTheSameReportInEveryFormat() {
        for (String format : new String[] {"text", "json", "csv"}) {
            String[] args = SCENARIO.clone();
            args[args.length - 1] = format;
            Outcome first = run(args);
            assertThat(first.exitCode).isZero();
            assertThat(run(args).out).isEqualTo(first.out);
            assertThat(first.out).contains("t3");
        }
        Outcome csv = run(SCENARIO[0], SCENARIO[1], SCENARIO[2], "--duration", "2s", "--seed", "1", "--format", "csv");
        assertThat(csv.out.lines().findFirst().orElseThrow()).startsWith("tenant,calls,served,refused_queue_full");
        assertThat(csv.out.lines()).hasSize(6).last().asString().startsWith("others,");
    }

    @Test
    void tenantOptionsNeedTenantsAndDoNotMixWithTheSingleBulkheadOnes() {
        Outcome withoutTenants = run("simulate", "--noisy-tenant", "10");
        assertThat(withoutTenants.exitCode).isNotZero();
        assertThat(withoutTenants.err).contains("--tenants");

        Outcome mixed = run("simulate", "--tenants", "2", "--no-bulkhead");
        assertThat(mixed.exitCode).isNotZero();
        assertThat(mixed.err).contains("--tenants cannot be combined with --no-bulkhead");

        Outcome negative = run("simulate", "--tenants", "2", "--noisy-tenant", "-1");
        assertThat(negative.exitCode).isNotZero();
        assertThat(negative.err).contains("--noisy-tenant");

        Outcome zero = run("simulate", "--tenants", "0");
        assertThat(zero.exitCode).isNotZero();
    }
}
