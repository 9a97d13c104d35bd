package dev.bulwark.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * An experiment's report: a text table, the full figures as JSON (every run's one-second windows included) and an
 * HTML page with charts ({@link HtmlLabReport}). The
 * table's figures (offered, goodput, latencies, outcomes, generator lag) are those of the schedule's second stage:
 * the surge in {@link Scenario#OVERLOAD}, the slow stage in {@link Scenario#SLOWDOWN}.
 */
final class Report {

    private Report() {
    }

    /**
     * Renders the text report.
     *
     * @param result the experiment's figures
     * @return the text, a header and one table row per guard
     */
    static String text(LabExperiment.Result result) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "bulwark-lab %s%s, %s, %d cores%n", result.scenario().command(),
                result.quick() ? " --quick" : "",
                result.started(), result.cores()));
        out.append(String.format(Locale.ROOT,
                "%s time alone %.2f ms; capacity %.0f/s (best closed-loop throughput of %s); fixed limit %d%n",
                result.scenario().dependency(), result.workMillisAlone(), result.capacityPerSecond(), result.probe(),
                result.fixedLimit()));
        out.append(sizing(result));
        if (result.scenario() == Scenario.SHEDDING) {
            out.append(String.format(Locale.ROOT, "the fixed limit is not used: the edge's bulkheads are at the pool's"
                    + " size, limit %d, queue %d, max wait %d ms; refused with 503 (priorities429: 429)%n",
                    LabApplication.POOL_SIZE, DependencyGuard.queueFor(LabApplication.POOL_SIZE),
                    LabExperiment.MAX_WAIT.toMillis()));
        }
        if (result.scenario() == Scenario.SLOWDOWN) {
            out.append(String.format(Locale.ROOT, "slowed: %s during the second stage (rounds completed per run: %s);"
                    + " closed-loop throughput of %d clients meanwhile %.0f/s, so the simulator's downstream works at"
                    + " %.2f of its speed then%n", result.slowedBy(), result.slowdownRounds(), LabApplication.POOL_SIZE,
                    result.slowedCapacityPerSecond(), result.simulatedSpeed()));
        }
        out.append("load average (1 min) at the start and after each run: ").append(result.loadAverages()
                .toString().replaceAll("[\\[\\]]", "")).append('\n');
        if (result.scenario() == Scenario.SHEDDING) {
            out.append(String.format(Locale.ROOT, "critical requests at %.0f/s (%.1fx) throughout, beside the "
                    + "sheddable ones' ", result.criticalPerSecond(), Scenario.CRITICAL_RATE));
        }
        out.append("schedule:");
        for (Stage s : result.stages()) {
            out.append(String.format(Locale.ROOT, " %s %.0f/s for %d s;", s.name(), s.fromRate(),
                    s.length().toSeconds()));
        }
        out.append(String.format(Locale.ROOT, " client timeout %d ms%n%n",
                LabExperiment.CLIENT_TIMEOUT.toMillis()));
        int width = guardWidth(result.runs());
        out.append(header(width)).append('\n');
        for (RunResult r : result.runs()) {
            out.append(row(r, width)).append('\n');
        }
        out.append("\ngoodput by stage, ok/s (share of the stage's requests that succeeded)\n");
        out.append(String.format(Locale.ROOT, "%-" + width + "s", "guard"));
        for (Stage s : result.stages()) {
            out.append(String.format(Locale.ROOT, " %20s", s.name()));
        }
        out.append('\n');
        for (RunResult r : result.runs()) {
            out.append(String.format(Locale.ROOT, "%-" + width + "s", r.guard()));
            for (int i = 0; i < r.stageGoodputPerSecond().size(); i++) {
                out.append(String.format(Locale.ROOT, " %20s", String.format(Locale.ROOT, "%.0f (%.0f%%)",
                        r.stageGoodputPerSecond().get(i), 100 * r.stageOkShare().get(i))));
            }
            out.append('\n');
        }
        out.append(simVsReal(result.simVsReal()));
        return out.toString();
    }

    /**
     * The model and the two sizings, and which one the runs used.
     *
     * @param result the experiment's figures
     * @return two lines
     */
    static String sizing(LabExperiment.Result result) {
        SimulatorSizing sizing = result.sizing();
        return String.format(Locale.ROOT, "simulator's downstream fitted to the probe: %s%n"
                + "fixed limit by the simulator %d (smallest limit at %.0f/s with p99 <= %.0f ms and unserved <= "
                + "%.1f%%), by Little's law %d; the fixed guard used %s's%n", result.model().describe(), sizing.limit(),
                sizing.ratePerSecond(), sizing.p99TargetMillis(), 100 * sizing.maxUnservedShare(),
                sizing.littleLimit(), result.fixedSizedBy().equals("little") ? "Little's law" : "the simulator");
    }

    /**
     * The sim-vs-real table: per run and stage, the simulator's goodput and p99 beside the measured ones, their
     * ratios, and whether both are within the bars (goodput within 10%, p99 within 20%).
     *
     * @param comparisons one per run; none gives an empty string
     * @return the table
     */
    static String simVsReal(List<SimVsReal> comparisons) {
        if (comparisons.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%nsimulator against the lab, per stage: "
                + "goodput ok/s and p99 ms (every outcome), predicted / measured (ratio)%n"));
        // As wide as the longest guard: the shedding experiment's runs are named by mode and lane.
        int guardWidth = Math.max(13, comparisons.stream().mapToInt(c -> c.guard().length()).max().orElse(0));
        String line = "%-" + guardWidth + "s %-14s %22s %26s %6s%n";
        out.append(String.format(Locale.ROOT, line, "guard", "stage", "goodput sim/lab", "p99 ms sim/lab", "bar"));
        for (SimVsReal c : comparisons) {
            for (SimVsReal.Row r : c.stages()) {
                out.append(String.format(Locale.ROOT, line, c.guard(), r.stage(),
                        String.format(Locale.ROOT, "%.0f / %.0f (%.2f)", r.predictedGoodput(), r.measuredGoodput(),
                                r.goodputRatio()),
                        String.format(Locale.ROOT, "%.0f / %.0f (%.2f)", r.predictedP99Millis(),
                                r.measuredP99Millis(), r.p99Ratio()), r.withinBar() ? "yes" : "no"));
            }
        }
        return out.toString();
    }

    /**
     * The width of the guard column: 13, or the longest label's ({@link Scenario#SHEDDING}'s name a class too).
     *
     * @param runs the runs of the table
     * @return at least 13
     */
    static int guardWidth(List<RunResult> runs) {
        return Math.max(13, runs.stream().mapToInt(r -> r.guard().length()).max().orElse(0));
    }

    /**
     * The table's header.
     *
     * @param width the guard column's width
     * @return one line
     */
    static String header(int width) {
        return String.format(Locale.ROOT, "%-" + width + "s %5s %8s %8s %8s %8s %8s %7s %7s %7s %6s %9s %7s", "guard",
                "limit", "offered", "goodput", "p50 ms", "p99 ms", "okp99 ms", "refused", "poolTO", "clTO", "errors",
                "recovery", "lag ms");
    }

    /**
     * One run's row of the table, its guard column as wide as its label needs (for progress lines).
     *
     * @param r the run
     * @return one line
     */
    static String row(RunResult r) {
        return row(r, guardWidth(List.of(r)));
    }

    /**
     * One run's row of the table.
     *
     * @param r the run
     * @param width the guard column's width
     * @return one line
     */
    static String row(RunResult r, int width) {
        return String.format(Locale.ROOT, "%-" + width + "s %5s %8.0f %8.0f %8.1f %8.1f %8.1f %7d %7d %7d %6d %9s "
                + "%7.1f",
                r.guard(), limit(r, ">"), r.surgeOfferedPerSecond(), r.surgeGoodputPerSecond(), r.surgeP50Millis(),
                r.surgeP99Millis(), r.surgeOkP99Millis(), r.surgeOutcomes().get(Outcome.REFUSED), r.poolTimeouts(),
                r.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT), r.surgeOutcomes().get(Outcome.ERROR),
                recovery(r), r.surgeGeneratorLagP99Millis());
    }

    /**
     * A run's limit cell: "-" without a limit, the limit, or the starting and final limits when they differ.
     *
     * @param r the run
     * @param arrow what stands between the starting and the final limit
     * @return the cell's text
     */
    static String limit(RunResult r, String arrow) {
        return r.limit() == 0 ? "-" : r.finalLimit() >= 0 && r.finalLimit() != r.limit()
                ? r.limit() + arrow + r.finalLimit() : Integer.toString(r.limit());
    }

    /**
     * A run's recovery cell: "none", or the seconds to recover.
     *
     * @param r the run
     * @return the cell's text
     */
    static String recovery(RunResult r) {
        return r.recoverySeconds() < 0 ? "none" : String.format(Locale.ROOT, "%.1f s", r.recoverySeconds());
    }

    /**
     * Writes {@code <command>.txt}, {@code <command>.json} and {@code <command>.html} into {@code dir},
     * {@code <command>} being the scenario's ({@code overload}, {@code slowdown}).
     *
     * @param result the experiment's figures
     * @param dir the directory, created when missing
     * @throws IOException when a file cannot be written
     */
    static void write(LabExperiment.Result result, Path dir) throws IOException {
        Files.createDirectories(dir);
        String name = result.scenario().command();
        Files.writeString(dir.resolve(name + ".txt"), text(result), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(name + ".html"), HtmlLabReport.render(result), StandardCharsets.UTF_8);
        JsonMapper json = JsonMapper.builder().disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .enable(SerializationFeature.INDENT_OUTPUT).build();
        json.writeValue(dir.resolve(name + ".json").toFile(), result);
    }
}
