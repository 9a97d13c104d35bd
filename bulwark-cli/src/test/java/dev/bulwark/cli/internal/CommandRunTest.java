package dev.bulwark.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.cli.internal.CliRun.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Short real runs through the command line, in every output format. */
class CommandRunTest {

    private static final String[] SHORT = {"--duration", "300ms", "--drain", "100ms", "--seed", "5"};

    private static Outcome run(String command, String... args) {
        String[] all = new String[args.length + SHORT.length + 1];
        all[0] = command;
        System.arraycopy(SHORT, 0, all, 1, SHORT.length);
        System.arraycopy(args, 0, all, 1 + SHORT.length, args.length);
        return CliRun.run(all);
    }

    @Test
    void textReportHasEveryPart() {
        Outcome outcome = run("simulate", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        assertThat(outcome.err).isEmpty();
        assertThat(outcome.out).contains("bulwark simulate: 300ms of Poisson arrivals at 2000/s, seed 5",
                "limit 32, queue 64, max wait 100ms", "arrived", "completed", "rejected, queue full",
                "rejected, wait timeout", "timed out", "cancelled at end", "Goodput", "queue wait", "end to end",
                "p50", "p90", "p99", "p99.9", "max", "peak", "Little's law", "Machine", "Verdict:");
    }

    @Test
    void jsonReportParsesAndAddsUp() throws Exception {
        Outcome outcome = run("simulate", "--progress", "off", "--format", "json", "--retry", "1", "--timeout",
                "1s");

        assertThat(outcome.exitCode).isZero();
        JsonNode json = new ObjectMapper().readTree(outcome.out);
        JsonNode outcomes = json.get("outcomes");
        long arrivals = outcomes.get("arrivals").asLong();
        assertThat(arrivals).isPositive();
        assertThat(outcomes.get("completed").asLong() + outcomes.get("rejectedQueueFull").asLong()
                + outcomes.get("rejectedWaitTimeout").asLong() + outcomes.get("rejectedEvicted").asLong()
                + outcomes.get("timedOut").asLong()
                + outcomes.get("cancelled").asLong() + outcomes.get("failed").asLong()).isEqualTo(arrivals);
        assertThat(json.at("/settings/seed").asLong()).isEqualTo(5);
        assertThat(json.at("/settings/bulkhead/limit").asInt()).isEqualTo(32);
        assertThat(json.at("/settings/retry/maxRetries").asInt()).isEqualTo(1);
        assertThat(json.at("/settings/timeoutMs").asDouble()).isEqualTo(1000.0);
        assertThat(json.at("/latencyMs/endToEnd/p99").isNumber()).isTrue();
        assertThat(json.at("/littlesLaw/holds").isBoolean()).isTrue();
        assertThat(json.at("/peakInFlight").asInt()).isBetween(1, 32);
        assertThat(json.get("timeline").size()).isGreaterThan(1);
        assertThat(json.get("verdict").asText()).isNotBlank();
    }

    @Test
    void jsonReportWritesNullForWhatDoesNotExist() throws Exception {
        Outcome outcome = run("simulate", "--progress", "off", "--format", "json", "--no-bulkhead");

        JsonNode json = new ObjectMapper().readTree(outcome.out);
        assertThat(json.at("/settings/bulkhead").isNull()).isTrue();
        assertThat(json.at("/bulkheadEvents").isNull()).isTrue();
        assertThat(json.at("/latencyMs/queueWait/count").asLong()).isZero();
        assertThat(json.at("/latencyMs/queueWait/p99").isNull()).isTrue();
    }

    @Test
    void csvReportIsAHeaderAndOneRowOfTheSameWidth() {
        Outcome outcome = run("simulate", "--progress", "off", "--format", "csv");

        List<String> lines = outcome.out.lines().collect(Collectors.toList());
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("limit,queue,maxWaitMs,arrivals,completed,");
        assertThat(lines.get(1).split(",", -1)).hasSameSizeAs(lines.get(0).split(",", -1));
        assertThat(lines.get(1)).startsWith("32,64,100,");
    }

    @Test
    void plainProgressGoesToStandardErrorAndLeavesTheReportClean() throws Exception {
        Outcome outcome = run("simulate", "--progress", "plain", "--format", "json");

        assertThat(outcome.err).contains("arrivals").contains("in flight").contains("queued").contains("rejected")
                .contains("p99").doesNotContain("\r");
        new ObjectMapper().readTree(outcome.out);
    }

    @Test
    void htmlReportIsWrittenWhereAsked(@TempDir Path directory) throws Exception {
        Path report = directory.resolve("run.html");

        Outcome outcome = run("simulate", "--progress", "off", "--report", report.toString());

        assertThat(outcome.exitCode).isZero();
        assertThat(outcome.err).contains("Report written to " + report);
        assertThat(Files.readString(report)).startsWith("<!DOCTYPE html>").contains("<svg");
    }

    @Test
    void sweepPrintsARowPerSettingAndNamesTheSmallestThatMeetsTheTargets() {
        Outcome outcome = run("sweep", "--progress", "off", "--limit", "16,4", "--queue", "8,0", "--max-reject",
                "100%");

        assertThat(outcome.exitCode).isZero();
        List<String> rows = outcome.out.lines().filter(line -> line.matches("\\s+\\d+\\s+\\d+\\s.*"))
                .collect(Collectors.toList());
        assertThat(rows).hasSize(4);
        assertThat(rows.get(0)).matches("\\s+4\\s+0\\s.*");
        assertThat(rows.get(3)).matches("\\s+16\\s+8\\s.*");
        assertThat(outcome.out).contains("Smallest setting that meets the targets").contains("--limit 4 --queue 0");
    }

    @Test
    void sweepSaysWhyNoSettingMeetsImpossibleTargetsAndExitsWith1() {
        Outcome outcome = run("sweep", "--progress", "off", "--limit", "4,8", "--queue", "0", "--max-reject", "0%",
                "--target-p99", "1us");

        assertThat(outcome.exitCode).isEqualTo(1);
        assertThat(outcome.out).contains("No setting meets the targets (p99 <= 0.00 ms, unserved <= 0.0 %)");
    }

    @Test
    void sweepWritesJsonAndCsv() throws Exception {
        Outcome json = run("sweep", "--progress", "off", "--limit", "8", "--queue", "0,4", "--format", "json",
                "--target-p99", "10s");
        JsonNode tree = new ObjectMapper().readTree(json.out);
        assertThat(tree.get("runs").size()).isEqualTo(2);
        assertThat(tree.at("/runs/0/limit").asInt()).isEqualTo(8);
        assertThat(tree.at("/runs/1/queue").asInt()).isEqualTo(4);
        assertThat(tree.at("/targets/p99Ms").asDouble()).isEqualTo(10_000.0);
        assertThat(tree.at("/recommended/limit").asInt()).isEqualTo(8);

        Outcome csv = run("sweep", "--progress", "off", "--limit", "8", "--queue", "0,4", "--format", "csv");
        List<String> lines = csv.out.lines().collect(Collectors.toList());
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).endsWith(",meetsTargets");
        assertThat(lines.get(2)).startsWith("8,4,");
    }
}
