package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.internal.CliRun.Outcome;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad input ends with exit code 2 and one line that names the flag and the accepted form: no usage dump, no stack
 * trace, nothing on standard output, and no simulation run.
 */
class BadInputTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "simulate --lmit 4               | unknown option '--lmit' (did you mean --limit?)",
        "simulate --limit 0              | --limit: expected a whole number of at least 1, got '0'",
        "simulate --limit many           | --limit: expected a whole number of at least 1, got 'many'",
        "simulate --queue -1             | --queue: expected a whole number of at least 0, got '-1'",
        "simulate --clients 0            | --clients: expected a whole number of at least 1, got '0'",
        "simulate --downstream-capacity 0 | --downstream-capacity: expected a whole number of at least 1",
        "simulate --duration 10          | --duration: expected a duration such as 20ms, 1.5s, 250us or 2m, got '10'",
        "simulate --duration 0s          | --duration: expected a duration such as 20ms, 1.5s, 250us or 2m "
                + "(more than zero)",
        "simulate --max-wait soon        | --max-wait: expected a duration such as 20ms, 1.5s, 250us or 2m "
                + "(more than zero), or none",
        "simulate --drain -1s            | --drain: expected a duration such as 20ms",
        "simulate --timeout 0ms          | --timeout: expected a duration such as 20ms",
        "simulate --retry-delay x --retry 1 | --retry-delay: expected a duration such as 20ms",
        "simulate --retry 0              | --retry: expected a whole number of at least 1, got '0'",
        "simulate --rate fast            | --rate: expected a rate such as 2000/s, 120000/m or 5/ms, got 'fast'",
        "simulate --rate 0/s             | --rate: expected a rate such as 2000/s",
        "simulate --service-time gauss:3ms | --service-time: expected fixed:20ms, exp:20ms, "
                + "lognormal:median=20ms,p99=200ms, pareto:mean=20ms,shape=2.5 or mix:fast=5ms,slow=100ms,share=10%, "
                + "got 'gauss:3ms'",
        "simulate --service-time lognormal:median=20ms | --service-time: expected fixed:20ms, exp:20ms, "
                + "lognormal:median=20ms,p99=200ms, pareto:mean=20ms,shape=2.5 or mix:fast=5ms,slow=100ms,share=10%",
        "simulate --think-time x --clients 2 | --think-time: expected fixed:20ms, exp:20ms, lognormal",
        "simulate --degradation -1       | --degradation: expected a number of at least 0 such as 1 or 0.5, got '-1'",
        "simulate --seed x               | --seed: expected a whole number such as 42, got 'x'",
        "simulate --format xml           | --format: expected text, json or csv, got 'xml'",
        "simulate --progress loud        | --progress: expected auto, live, plain or off, got 'loud'",
        "simulate --limit                | Missing required parameter for option '--limit'",
        "simulate --rate 10/s --clients 4 | --rate=RATE, --clients=N are mutually exclusive",
        "simulate --think-time 5ms       | --think-time applies only with --clients",
        "simulate --no-bulkhead --queue 4 | --no-bulkhead cannot be combined with --queue",
        "simulate --retry-delay 5ms      | --retry-delay applies only with --retry N",
        "simulate --adaptive fast        | --adaptive: expected self-tuning, aimd or gradient, got 'fast'",
        "simulate --queue-order random   | --queue-order: expected fifo or lifo, got 'random'",
        "simulate --max-limit 50         | --max-limit needs --adaptive",
        "simulate --adaptive gradient --latency-threshold 5ms | --latency-threshold needs --adaptive aimd",
        "simulate --adaptive aimd --limit 50 --max-limit 20 | --limit (50) is the starting limit "
                + "and must lie within --min-limit 1 and --max-limit 20",
        "simulate --adaptive aimd --min-limit 9 --max-limit 3 --limit 5 | --max-limit (3) "
                + "must be at least --min-limit (9)",
        "simulate --no-bulkhead --adaptive aimd | --no-bulkhead cannot be combined with --adaptive",
        "simulate extra                  | unexpected argument 'extra'",
        "simulate --service-time 0ms     | --service-time: expected a service time of more than zero, "
                + "such as exp:20ms, got '0ms' (its mean is zero)",
        "simulate --service-time fixed:0ms | --service-time: expected a service time of more than zero",
        "simulate --max-wait 2562048h    | --max-wait: expected a duration such as 20ms, 1.5s, 250us or 2m "
                + "(more than zero), or none, got '2562048h' (too long)",
        "simulate --retry 101            | --retry: expected a whole number from 1 to 100, got '101'",
        "simulate --tenants 100001 --duration 1ms | --tenants: expected a whole number from 1 to 100000, got '100001'",
        "simulate --clients 100001 --virtual-time --duration 1ms | --clients: expected a whole number from 1 to 100000",
        "compare --duration 999ms        | --duration: compare needs at least 1s of virtual time per run",
        "sweep --limit 4,0               | --limit: expected a whole number of at least 1, got '0'",
        "sweep --queue 0,x               | --queue: expected a whole number of at least 0, got 'x'",
        "sweep --max-reject 200%         | --max-reject: expected a percentage from 0% to 100% "
                + "such as 1% or 0.5%, got '200%'",
        "sweep --target-p99 fast         | --target-p99: expected a duration such as 20ms",
        "sweep --no-bulkhead             | unknown option '--no-bulkhead'",
        "frobnicate                      | unexpected argument 'frobnicate' (did you mean migrate or simulate?)",
    })
    void badInputIsOneLineWithExitCode2(String commandLine, String expected) {
        Outcome outcome = run(commandLine.trim().split("\\s+"));

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err.lines()).hasSize(1);
        assertThat(outcome.err).contains(expected).contains("see 'bulwark")
                .doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("Usage:");
        assertThat(outcome.out).isEmpty();
    }

    /** Issue 38 finding 7: a hundred million tenants or clients ran out of memory instead of answering. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"--tenants", "--clients"})
    void aPopulationThatCannotFitInMemoryIsBadInputNamingTheMaximum(String option) {
        Outcome outcome = run("simulate", option, "100000000", "--progress", "off");

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err.strip()).isEqualTo("bulwark simulate: " + option
                + ": expected a whole number from 1 to 100000, got '100000000' (see 'bulwark simulate --help')");
        assertThat(outcome.out).isEmpty();
    }

    @Test
    void noCommandIsBadInputToo() {
        Outcome outcome = run();

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err.strip())
                .isEqualTo("bulwark: missing command: simulate, sweep, compare or migrate (see 'bulwark --help')");
    }

    @Test
    void aReportInAMissingDirectoryIsRefusedBeforeTheRun(@TempDir Path directory) {
        Path report = directory.resolve("missing").resolve("run.html");

        Outcome outcome = run("simulate", "--report", report.toString(), "--progress", "off");

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err).contains("--report: directory '" + report.getParent() + "' does not exist");
        assertThat(outcome.out).isEmpty();
    }

    @Test
    void aReportThatCannotBeWrittenNamesTheFlagThePathAndTheReason() {
        // /proc exists, so the directory check before the run passes; nothing can be created in it.
        Outcome failed = run("simulate", "--virtual-time", "--duration", "100ms", "--seed", "1", "--progress", "off",
                "--report", "/proc/bulwark-no-such-file.html");

        assertThat(failed.exitCode).isEqualTo(1);
        assertThat(failed.err.lines()).hasSize(1);
        assertThat(failed.err).contains("bulwark simulate: --report: could not write "
                + "'/proc/bulwark-no-such-file.html' (").doesNotContain("\tat ");
    }

    @Test
    void helpAndVersionAreOnEveryCommand() {
        for (String command : new String[] {"", "simulate", "sweep"}) {
            String[] help = command.isEmpty() ? new String[] {"--help"} : new String[] {command, "--help"};
            Outcome helped = run(help);
            assertThat(helped.exitCode).as(command + " --help").isZero();
            assertThat(helped.out).contains("Usage: bulwark").doesNotContain("Could not format");
            assertThat(helped.err).isEmpty();

            String[] version = command.isEmpty() ? new String[] {"--version"} : new String[] {command, "--version"};
            Outcome versioned = run(version);
            assertThat(versioned.exitCode).isZero();
            assertThat(versioned.out).startsWith("bulwark ").doesNotContain("unknown").contains("Java ");
        }
    }

    @Test
    void helpDocumentsEveryForm() {
        String help = run("simulate", "--help").out;

        assertThat(help).contains("--rate=RATE", "2000/s, 120000/m, 5/ms", "--clients=N", "--think-time=DIST",
                "--seed=N", "--service-time=DIST", "lognormal:median=20ms,p99=200ms", "--downstream-capacity=N",
                "--degradation=D", "--limit=N", "--queue=N", "--max-wait=DURATION", "--no-bulkhead", "--retry=N",
                "--retry-delay=DURATION", "--timeout=DURATION", "--threads", "--drain=DURATION", "--format=FORMAT",
                "--report=FILE.html", "--progress=MODE", "--duration=DURATION", "--queue-order=ORDER",
                "--adaptive=ALGORITHM", "--min-limit=N", "--max-limit=N", "--latency-threshold=DURATION");
    }
}
