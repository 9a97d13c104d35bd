package dev.bulwark.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.internal.sim.Progress;
import dev.bulwark.cli.internal.sim.ProgressListener;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Progress is shown from synthetic samples, ten a second, as a run would give them. */
class ProgressPrinterTest {

    private static String feed(ProgressMode mode, int samples) {
        StringWriter err = new StringWriter();
        ProgressListener printer = ProgressPrinter.create(mode, new PrintWriter(err, true), "");
        for (int i = 1; i <= samples; i++) {
            printer.progress(progress(i * 100L, Progress.Phase.RUNNING));
        }
        printer.progress(progress(samples * 100L + 1, Progress.Phase.DONE));
        return err.toString();
    }

    private static Progress progress(long elapsedMillis, Progress.Phase phase) {
        return new Progress(Duration.ofMillis(elapsedMillis), Duration.ofSeconds(10), phase, 2000, 32, 61, 402,
                118.4);
    }

    @Test
    void plainModePrintsOneLinePerSecond() {
        String output = feed(ProgressMode.PLAIN, 50);

        assertThat(output.lines()).hasSize(5 + 1);
        assertThat(output).doesNotContain("\r").doesNotContain("\u001b");
        assertThat(output.lines().findFirst().orElseThrow())
                .isEqualTo("[  0.1s/10s] arrivals  2,000/s  in flight     32  queued    61  "
                        + "rejected    402/s  p99 118 ms");
    }

    @Test
    void liveModeRewritesOneLineAtLeastTwiceASecondAndClearsItAtTheEnd() {
        String output = feed(ProgressMode.LIVE, 50);

        long refreshes = output.chars().filter(c -> c == '\r').count() - 1;
        assertThat(refreshes).isBetween(2L * 5, 4L * 5 + 1);
        assertThat(output).doesNotContain("\n").endsWith("\r\u001b[K");
    }

    @Test
    void drainingIsShown() {
        assertThat(ProgressPrinter.describe(progress(10_300, Progress.Phase.DRAINING)))
                .startsWith("[ 10.3s/10s draining]");
    }

    @Test
    void offShowsNothing() {
        assertThat(feed(ProgressMode.OFF, 30)).isEmpty();
    }
}
