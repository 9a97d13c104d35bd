package dev.bulwark.cli.internal;

import dev.bulwark.cli.internal.report.SweepReport;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.ProgressListener;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import dev.bulwark.cli.internal.sim.Sweep;
import dev.bulwark.cli.internal.sim.SweepResult;
import dev.bulwark.cli.internal.sim.SweepTargets;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code bulwark sweep}: {@code simulate} over a grid of limits and queue sizes, naming the smallest that fits. */
@Command(name = "sweep", mixinStandardHelpOptions = true, versionProvider = BulwarkVersion.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = {
            "Runs the same scenario (same seed: same arrivals, same service times) once for every combination of "
                    + "--limit and --queue, prints one row per setting, and names the smallest setting (smallest "
                    + "limit, then smallest queue) that meets --target-p99 and --max-reject, or says why none does.",
            "Exits with 1 when targets were given and no setting meets them.", ""},
        footer = {"", "Example:",
            "  bulwark sweep --rate 1400/s --limit 16,24,32,48 --queue 0,16,64 \\",
            "                --target-p99 150ms --max-reject 1%%"})
final class SweepCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", order = 10, paramLabel = "DURATION", defaultValue = "5s",
            converter = Converters.PositiveDuration.class,
            description = "How long calls arrive in each run (each takes this plus up to --drain). "
                    + "Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Mixin
    ScenarioOptions scenario;

    @Option(names = "--limit", order = 50, paramLabel = "N", split = ",", defaultValue = "8,16,32,64",
            converter = Converters.PositiveInteger.class,
            description = "The bulkhead limits (maxConcurrency) to try. Default: ${DEFAULT-VALUE}.")
    List<Integer> limits;

    @Option(names = "--queue", order = 51, paramLabel = "N", split = ",", defaultValue = "0,16,64",
            converter = Converters.NonNegativeInteger.class,
            description = "The queue sizes (maxQueue) to try. Default: ${DEFAULT-VALUE}.")
    List<Integer> queues;

    @Option(names = "--max-wait", order = 52, paramLabel = "DURATION", defaultValue = "100ms",
            converter = Converters.MaxWait.class,
            description = "The maximum wait of every setting; none for no bound. Default: ${DEFAULT-VALUE}.")
    Duration maxWait;

    @Option(names = "--target-p99", order = 55, paramLabel = "DURATION", converter = Converters.PositiveDuration.class,
            description = "The highest acceptable p99 of end-to-end latency of completed calls, e.g. 250ms.")
    Duration targetP99;

    @Option(names = "--max-reject", order = 56, paramLabel = "PERCENT", converter = Converters.Percentage.class,
            description = "The largest acceptable share of calls left unserved (rejected, timed out or cancelled), "
                    + "e.g. 1%%.")
    Double maxReject;

    @Override
    public Integer call() {
        SimulationSettings scenarioSettings = scenario.settings(spec, duration).build();
        SweepTargets targets = new SweepTargets(targetP99, maxReject);
        Sweep sweep = new Sweep(scenarioSettings, limits, queues, maxWait, targets);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SweepResult result = sweep.run(new ProgressLines(err, scenario.progress));
        switch (scenario.format) {
            case JSON:
                SweepReport.writeJson(result, out);
                break;
            case CSV:
                SweepReport.writeCsv(result, out);
                break;
            default:
                SweepReport.writeText(result, out);
        }
        out.flush();
        return targets.any() && result.recommended().isEmpty() ? 1 : 0;
    }

    /** Shows each run's progress, then one line with its outcome. */
    private static final class ProgressLines implements Sweep.Observer {
        private final PrintWriter err;
        private final ProgressMode mode;

        ProgressLines(PrintWriter err, ProgressMode mode) {
            this.err = err;
            this.mode = mode;
        }

        private static String label(int index, int total, BulkheadSettings setting) {
            return String.format(Locale.ROOT, "[%d/%d limit %d, queue %d] ", index + 1, total, setting.limit(),
                    setting.queue());
        }

        @Override
        public ProgressListener starting(int index, int total, BulkheadSettings setting) {
            return ProgressPrinter.create(mode, err, label(index, total, setting));
        }

        @Override
        public void finished(int index, int total, SweepResult.Row row) {
            if (mode == ProgressMode.OFF) {
                return;
            }
            SimulationResult result = row.result();
            err.println(label(index, total, row.setting()) + String.format(Locale.ROOT,
                    "done: %.0f calls/s served, %.1f %% unserved, p99 %s", result.goodput(),
                    100 * result.counts().unservedShare(), Durations.humanMillis(result.endToEnd().p99())));
            err.flush();
        }
    }
}
