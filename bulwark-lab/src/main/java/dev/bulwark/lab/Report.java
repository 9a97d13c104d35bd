package dev.bulwark.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The experiment's report: a text table and the full figures as JSON (every run's one-second windows included).
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
    static String text(OverloadExperiment.Result result) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "bulwark-lab overload%s, %s, %d cores%n",
                result.quick() ? " --quick" : "",
                result.started(), result.cores()));
        out.append(String.format(Locale.ROOT,
                "database time alone %.2f ms; capacity %.0f/s (best closed-loop throughput of %s); fixed limit %d%n",
                result.dbMillisAlone(), result.capacityPerSecond(), result.probe(), result.fixedLimit()));
        out.append("schedule:");
        for (Stage s : result.stages()) {
            out.append(String.format(Locale.ROOT, " %s %.0f/s for %d s;", s.name(), s.fromRate(),
                    s.length().toSeconds()));
        }
        out.append(String.format(Locale.ROOT, " client timeout %d ms%n%n",
                OverloadExperiment.CLIENT_TIMEOUT.toMillis()));
        out.append(header()).append('\n');
        for (RunResult r : result.runs()) {
            out.append(row(r)).append('\n');
        }
        return out.toString();
    }

    /**
     * The table's header.
     *
     * @return one line
     */
    static String header() {
        return String.format(Locale.ROOT, "%-13s %5s %8s %8s %8s %8s %8s %7s %7s %7s %6s %9s %7s", "guard",
                "limit", "offered", "goodput", "p50 ms", "p99 ms", "okp99 ms", "refused", "poolTO", "clTO", "errors",
                "recovery", "lag ms");
    }

    /**
     * One run's row of the table.
     *
     * @param r the run
     * @return one line
     */
    static String row(RunResult r) {
        String limit = r.limit() == 0 ? "-" : r.finalLimit() >= 0 && r.finalLimit() != r.limit()
                ? r.limit() + ">" + r.finalLimit() : Integer.toString(r.limit());
        return String.format(Locale.ROOT, "%-13s %5s %8.0f %8.0f %8.1f %8.1f %8.1f %7d %7d %7d %6d %9s %7.1f",
                r.guard(), limit, r.surgeOfferedPerSecond(), r.surgeGoodputPerSecond(), r.surgeP50Millis(),
                r.surgeP99Millis(), r.surgeOkP99Millis(), r.surgeOutcomes().get(Outcome.REFUSED), r.poolTimeouts(),
                r.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT), r.surgeOutcomes().get(Outcome.ERROR),
                r.recoverySeconds() < 0 ? "none" : String.format(Locale.ROOT, "%.1f s", r.recoverySeconds()),
                r.surgeGeneratorLagP99Millis());
    }

    /**
     * Writes {@code overload.txt} and {@code overload.json} into {@code dir}.
     *
     * @param result the experiment's figures
     * @param dir the directory, created when missing
     * @throws IOException when a file cannot be written
     */
    static void write(OverloadExperiment.Result result, Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("overload.txt"), text(result), StandardCharsets.UTF_8);
        ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .enable(SerializationFeature.INDENT_OUTPUT);
        json.writeValue(dir.resolve("overload.json").toFile(), result);
    }
}
