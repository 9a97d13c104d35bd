package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --virtual-time} through the command line, and the report fixes of issue 14 (the header without a
 * maximum wait when there is no queue, queue order and adaptive limit in the JSON settings, the HTML legend).
 */
class VirtualTimeCommandTest {

    @Test
    void theVerdictCountsOnlyRefusalsAsRefusedAndNamesTheTimeoutsApart() {
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "1s", "--seed", "1", "--timeout", "40ms",
                "--queue", "0", "--format", "json", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        com.fasterxml.jackson.databind.JsonNode report;
        try {
            report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(outcome.out);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        com.fasterxml.jackson.databind.JsonNode counts = report.at("/outcomes");
        double arrivals = counts.get("arrivals").asDouble();
        long refused = counts.get("rejectedQueueFull").asLong() + counts.get("rejectedWaitTimeout").asLong()
                + counts.get("rejectedEvicted").asLong();
        long timedOut = counts.get("timedOut").asLong();
        assertThat(refused).as(counts.toString()).isPositive();
        assertThat(timedOut).as(counts.toString()).isPositive();
        String verdict = report.at("/verdict").asText();

        assertThat(verdict).startsWith("healthy.")
                .contains(String.format(java.util.Locale.ROOT, "%.1f %% were refused", 100 * refused / arrivals))
                .contains(String.format(java.util.Locale.ROOT, "%.1f %% timed out", 100 * timedOut / arrivals));
    }

    @Test
    // Five minutes of 1,600 calls/s, twice, in well under a minute even on a shared two-core machine.
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theSameSeedGivesTheSameReportByteForByteAndFiveMinutesTakeSeconds() {
        String[] args = {"simulate", "--virtual-time", "--duration", "300s", "--rate", "1600/s", "--seed", "3",
            "--downstream-capacity", "32", "--format", "json", "--progress", "off"};

        Outcome first = run(args);
        Outcome second = run(args);

        assertThat(first.exitCode).isZero();
        assertThat(second.out).isEqualTo(first.out);
        assertThat(first.out).contains("\"time\" : \"virtual\"", "callAsync in virtual time");
    }

    @Test
    void aDifferentSeedGivesADifferentRun() {
        Outcome first = run("simulate", "--virtual-time", "--duration", "2s", "--seed", "1", "--progress", "off");
        Outcome second = run("simulate", "--virtual-time", "--duration", "2s", "--seed", "2", "--progress", "off");

        assertThat(first.out).isNotEqualTo(second.out);
    }

    @Test
    void textReportSaysTimeWasVirtual() {
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "2s", "--seed", "4", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        assertThat(outcome.out).contains("callAsync in virtual time", "virtual time: every event happened exactly "
                + "when due").doesNotContain("punctual:");
    }

    @Test
    void sweepRunsInVirtualTimeToo() {
        Outcome outcome = run("sweep", "--virtual-time", "--duration", "2s", "--seed", "4", "--limit", "16,32",
                "--queue", "0,16", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        assertThat(outcome.out).contains("16", "32");
        Outcome again = run("sweep", "--virtual-time", "--duration", "2s", "--seed", "4", "--limit", "16,32",
                "--queue", "0,16", "--progress", "off");
        assertThat(again.out).isEqualTo(outcome.out);
    }

    @Test
    void virtualTimeAndThreadsExcludeEachOther() {
        Outcome outcome = run("simulate", "--virtual-time", "--threads", "--duration", "1s");

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err).contains("--virtual-time cannot be combined with --threads");
    }

    @Test
    void withNoQueueTheHeaderNamesNoMaximumWait() {
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "1s", "--queue", "0", "--seed", "2",
                "--progress", "off");

        assertThat(outcome.out).contains("limit 32, queue 0;").doesNotContain("max wait");
    }

    @Test
    void jsonSettingsNameTheQueueOrderAndTheAdaptiveLimit() throws Exception {
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "1s", "--seed", "2", "--progress", "off",
                "--format", "json", "--queue-order", "lifo", "--adaptive", "gradient", "--limit", "10");

        JsonNode bulkhead = new ObjectMapper().readTree(outcome.out).at("/settings/bulkhead");
        assertThat(bulkhead.get("queueOrder").asText()).isEqualTo("lifo");
        assertThat(bulkhead.at("/adaptive/algorithm").asText()).isEqualTo("gradient");
        assertThat(bulkhead.at("/adaptive/initialLimit").asInt()).isEqualTo(10);
        assertThat(bulkhead.at("/adaptive/minLimit").asInt()).isEqualTo(1);
        assertThat(bulkhead.at("/adaptive/maxLimit").asInt()).isEqualTo(1000);

        Outcome fixed = run("simulate", "--virtual-time", "--duration", "1s", "--seed", "2", "--progress", "off",
                "--format", "json");
        JsonNode fixedBulkhead = new ObjectMapper().readTree(fixed.out).at("/settings/bulkhead");
        assertThat(fixedBulkhead.get("queueOrder").asText()).isEqualTo("fifo");
        assertThat(fixedBulkhead.get("adaptive").isNull()).isTrue();
    }

    @Test
    void htmlLegendSaysWhichAdmittedCallsTheQueueWaitCurveDraws(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("run.html");
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "3s", "--seed", "2", "--progress", "off",
                "--rate", "2000/s", "--format", "json", "--report", page.toString());

        assertThat(outcome.exitCode).isZero();
        String html = Files.readString(page);
        assertThat(html).doesNotContain("(calls that waited)").containsPattern(
                "queue wait \\(the [0-9,]+ of [0-9,]+ admitted calls that waited\\)");
        // N counts every call that waited, also those the curve leaves out (waits under 10 µs, a sparse start).
        JsonNode events = new ObjectMapper().readTree(outcome.out).at("/bulkheadEvents");
        assertThat(html).contains(String.format(java.util.Locale.ROOT, "queue wait (the %,d of ",
                events.get("admittedAfterWaiting").asLong()));
    }

    @Test
    void aRunCutOffByTheDrainIsUnfinishedNotSlow() throws Exception {
        // 100 ms of arrivals and no drain: a quarter of the calls are cut off, the completed ones are fast.
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "100ms", "--seed", "1", "--drain", "0ms",
                "--progress", "off", "--format", "json");

        assertThat(outcome.exitCode).isZero();
        JsonNode report = new ObjectMapper().readTree(outcome.out);
        assertThat(report.at("/downstream/healthy").asBoolean()).isFalse();
        assertThat(report.get("verdict").asText()).startsWith("unfinished. ").contains("when the drain ended")
                .contains("(--drain 0ms)");
    }
}
