package dev.bulwark.cli.internal;

import static dev.bulwark.cli.internal.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.internal.CliRun.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report defects a new user met in issue 41 (item 4), each run through the command line as they ran it:
 * an adaptive limit reported as its start, a verdict that contradicted its own numbers, captions about a queue
 * that was not there, a silent virtual run, a huge duration that hung, help that left out a command and a form,
 * and a too-large number called too small.
 */
class ReportsReadWellTest {

    @Test
    void anAdaptiveLimitIsReportedAsItsRangeAndTheVerdictAgreesWithThePeak() {
        // The run of the issue: started at 5, the limit climbed past the capacity while it searched.
        Outcome outcome = run("simulate", "--virtual-time", "--adaptive", "self-tuning", "--limit", "5",
                "--duration", "5s", "--seed", "1", "--progress", "off");

        assertThat(outcome.exitCode).isZero();
        String bulkheadLine = outcome.out.lines().filter(line -> line.startsWith("Bulkhead")).findFirst()
                .orElseThrow();
        assertThat(bulkheadLine).doesNotContain("(limit 5)").containsPattern("adaptive limit \\d+ to \\d+");
        Matcher peak = Pattern.compile("Downstream +peak (\\d+) in flight \\(capacity (\\d+)\\)")
                .matcher(outcome.out);
        assertThat(peak.find()).isTrue();
        String verdict = outcome.out.substring(outcome.out.indexOf("Verdict:")).replace('\n', ' ');
        if (Integer.parseInt(peak.group(1)) > Integer.parseInt(peak.group(2))) {
            // "kept the downstream within what it serves at full speed (peak 46 in flight, capacity 32)" was the
            // contradiction: a peak above the capacity is not within it.
            assertThat(verdict).doesNotContain("within what it serves").contains("above its capacity");
        }
    }

    @Test
    void withoutABulkheadNeitherReportMentionsAQueueOrRefusals(@TempDir Path directory) throws Exception {
        Path page = directory.resolve("run.html");
        Outcome outcome = run("simulate", "--no-bulkhead", "--virtual-time", "--duration", "1s", "--seed", "1",
                "--progress", "off", "--report", page.toString());

        assertThat(outcome.exitCode).isZero();
        String text = outcome.out.substring(outcome.out.indexOf("Outcomes"));
        assertThat(text.toLowerCase(Locale.ROOT)).doesNotContain("queue").doesNotContain("rejected");
        String html = Files.readString(page).toLowerCase(Locale.ROOT);
        assertThat(html).doesNotContain("queue").doesNotContain("refused").doesNotContain("rejected")
                .contains("in flight over time");
    }

    @Test
    void aVirtualRunShowsItsProgress() {
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "2s", "--seed", "1", "--progress",
                "plain");

        assertThat(outcome.exitCode).isZero();
        assertThat(outcome.err).containsPattern("\\[ +[0-9.]+s/2s\\] arrivals");
    }

    @Test
    @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // it used to hang, computing for ever
    void aHugeVirtualDurationIsRefusedAtOnce() {
        Outcome outcome = run("simulate", "--virtual-time", "--duration", "1000000h");

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err.strip()).isEqualTo("bulwark simulate: --duration: --virtual-time runs at most 24h of "
                + "virtual time, got '1000000h' (see 'bulwark simulate --help')");
    }

    @Test
    void aTooLargeNumberIsCalledTooLarge() {
        Outcome outcome = run("simulate", "--limit", "99999999999");

        assertThat(outcome.exitCode).isEqualTo(2);
        assertThat(outcome.err).contains("--limit: expected a whole number from 1 to 2147483647, got "
                + "'99999999999' (too large)");
    }

    @Test
    void withNoCommandTheCliNamesEveryCommand() {
        Outcome outcome = run();

        assertThat(outcome.err).contains("simulate", "sweep", "compare");
    }

    @Test
    void theServiceTimeHelpListsEveryForm() {
        Outcome outcome = run("simulate", "--help");

        // picocli wraps lines at commas and colons: compare without the white space.
        String help = outcome.out.replaceAll("\\s+", "");
        assertThat(help).contains("fixed:20ms", "exp:20ms", "lognormal:median=20ms,p99=200ms",
                "pareto:mean=20ms,shape=2.5");
    }
}
