package dev.bulwark.cli.internal.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.bulwark.cli.internal.compare.CompareScenario;
import dev.bulwark.cli.internal.compare.Comparison;
import dev.bulwark.cli.internal.sim.Durations;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The reports of {@code bulwark compare}: a text table per scenario (and a summary matrix), JSON, and a
 * self-contained HTML page with each limiter's limit and goodput over time. Stateless.
 */
public final class CompareReport {

    private static final String[] COLORS = {"#111827", "#9333ea", "#2563eb", "#0891b2", "#65a30d", "#d97706",
        "#dc2626", "#db2777", "#4b5563"};

    private CompareReport() {
    }

    /**
     * Writes the text report: a summary matrix (mean share of the oracle's goodput, worst seed in brackets) and a
     * table per scenario.
     *
     * @param results the comparison's results
     * @param seeds the seeds used
     * @param duration each run's length
     * @param out where to write
     */
    public static void writeText(List<Comparison.ScenarioResult> results, List<Long> seeds, Duration duration,
                                 PrintWriter out) {
        out.printf(Locale.ROOT, "bulwark compare: %d scenarios, seeds %s, %s of virtual time each; goodput as a "
                + "share of the oracle's (the best fixed limit), mean of the seeds (worst seed)%n%n", results.size(),
                seeds, Durations.format(duration));
        for (String line : summaryTable(results)) {
            out.println(line);
        }
        for (Comparison.ScenarioResult result : results) {
            CompareScenario scenario = result.scenario();
            out.printf(Locale.ROOT, "%n%s: %s; oracle fixed %d at %.0f calls/s%n", scenario.name(),
                    scenario.description(), result.oracleLimit(), mean(result.oracleGoodput()));
            out.printf(Locale.ROOT, "  %-28s %8s %8s %11s %10s%n", "limiter", "mean", "worst", "p99/oracle",
                    scenario.steps().isEmpty() ? "" : "settle");
            for (Comparison.Row row : result.rows()) {
                out.printf(Locale.ROOT, "  %-28s %7.1f%% %7.1f%% %10.2fx %10s%n", row.contender(),
                        100 * row.meanShare(), 100 * row.worstShare(), row.worstP99Ratio(),
                        scenario.steps().isEmpty() ? "" : settle(row.worstSettleSeconds()));
            }
        }
    }

    /** The markdown summary matrix: one row per limiter, one column per scenario. */
    static List<String> summaryTable(List<Comparison.ScenarioResult> results) {
        List<String> lines = new java.util.ArrayList<>();
        StringBuilder header = new StringBuilder("| limiter |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (Comparison.ScenarioResult result : results) {
            header.append(' ').append(result.scenario().name()).append(" |");
            rule.append(" --- |");
        }
        lines.add(header.toString());
        lines.add(rule.toString());
        int rows = results.isEmpty() ? 0 : results.get(0).rows().size();
        for (int r = 1; r < rows; r++) {
            StringBuilder line = new StringBuilder("| ").append(results.get(0).rows().get(r).contender()).append(" |");
            for (Comparison.ScenarioResult result : results) {
                Comparison.Row row = result.rows().get(r);
                line.append(String.format(Locale.ROOT, " %.0f%% (%.0f%%) |", 100 * row.meanShare(),
                        100 * row.worstShare()));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    private static String settle(double seconds) {
        return Double.isNaN(seconds) ? "never" : String.format(Locale.ROOT, "%.1fs", seconds);
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double value : values) {
            sum += value;
        }
        return sum / values.length;
    }

    /**
     * Writes the JSON report.
     *
     * @param results the comparison's results
     * @param seeds the seeds used
     * @param duration each run's length
     * @param out where to write
     */
    public static void writeJson(List<Comparison.ScenarioResult> results, List<Long> seeds, Duration duration,
                                 PrintWriter out) {
        try {
            JsonGenerator json = JsonReport.generator(out);
            json.writeStartObject();
            json.writeNumberField("durationMs", duration.toNanos() / 1e6);
            json.writeArrayFieldStart("seeds");
            for (long seed : seeds) {
                json.writeNumber(seed);
            }
            json.writeEndArray();
            json.writeArrayFieldStart("scenarios");
            for (Comparison.ScenarioResult result : results) {
                json.writeStartObject();
                json.writeStringField("name", result.scenario().name());
                json.writeStringField("description", result.scenario().description());
                json.writeNumberField("oracleLimit", result.oracleLimit());
                writeArray(json, "oracleGoodputPerSecond", result.oracleGoodput());
                json.writeArrayFieldStart("limiters");
                for (Comparison.Row row : result.rows()) {
                    json.writeStartObject();
                    json.writeStringField("name", row.contender());
                    json.writeStringField("family", row.family());
                    json.writeNumberField("meanShareOfOracle", row.meanShare());
                    json.writeNumberField("worstShareOfOracle", row.worstShare());
                    json.writeNumberField("worstP99RatioToOracle", row.worstP99Ratio());
                    writeArray(json, "shareOfOracle", row.shareOfOracle());
                    writeArray(json, "p99Ms", row.p99Millis());
                    if (!result.scenario().steps().isEmpty()) {
                        double settle = row.worstSettleSeconds();
                        if (Double.isNaN(settle)) {
                            json.writeNullField("worstSettleSeconds");
                        } else {
                            json.writeNumberField("worstSettleSeconds", settle);
                        }
                    }
                    json.writeEndObject();
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
            json.flush();
            JsonReport.newline(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeArray(JsonGenerator json, String name, double[] values) throws IOException {
        json.writeArrayFieldStart(name);
        for (double value : values) {
            if (Double.isNaN(value)) {
                json.writeNull();
            } else {
                json.writeNumber(value);
            }
        }
        json.writeEndArray();
    }

    /**
     * Writes the HTML page.
     *
     * @param results the comparison's results
     * @param seeds the seeds used
     * @param duration each run's length
     * @param path where to write
     * @throws IOException when the file cannot be written
     */
    public static void writeHtml(List<Comparison.ScenarioResult> results, List<Long> seeds, Duration duration,
                                 Path path) throws IOException {
        Files.writeString(path, renderHtml(results, seeds, duration), StandardCharsets.UTF_8);
    }

    /**
     * Renders the HTML page: the summary, then for each scenario its table and two charts over time (first
     * seed): each limiter's limit, and each limiter's goodput per second.
     *
     * @param results the comparison's results
     * @param seeds the seeds used
     * @param duration each run's length
     * @return the whole document
     */
    public static String renderHtml(List<Comparison.ScenarioResult> results, List<Long> seeds, Duration duration) {
        StringBuilder html = new StringBuilder(262_144);
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>bulwark compare</title>\n<style>\n").append(HtmlReport.STYLE)
                .append("\n</style>\n</head>\n<body>\n<main>\n<h1>Adaptive limiters compared</h1>\n<p class=\"sub\">")
                .append(Html.escape(String.format(Locale.ROOT, "%d scenarios, seeds %s, %s of virtual time each; "
                        + "goodput as a share of the oracle's (the best fixed limit), mean of the seeds (worst "
                        + "seed)", results.size(), seeds, Durations.format(duration)))).append("</p>\n");
        html.append("<table>\n<tr><th>limiter</th>");
        for (Comparison.ScenarioResult result : results) {
            html.append("<th>").append(Html.escape(result.scenario().name())).append("</th>");
        }
        html.append("</tr>\n");
        int rows = results.isEmpty() ? 0 : results.get(0).rows().size();
        for (int r = 1; r < rows; r++) {
            html.append("<tr><td>").append(Html.escape(results.get(0).rows().get(r).contender())).append("</td>");
            for (Comparison.ScenarioResult result : results) {
                Comparison.Row row = result.rows().get(r);
                html.append(String.format(Locale.ROOT, "<td>%.0f%% (%.0f%%)</td>", 100 * row.meanShare(),
                        100 * row.worstShare()));
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n");
        for (Comparison.ScenarioResult result : results) {
            CompareScenario scenario = result.scenario();
            html.append("<h2>").append(Html.escape(scenario.name())).append("</h2>\n<p class=\"how\">")
                    .append(Html.escape(scenario.description() + "; oracle: fixed " + result.oracleLimit()))
                    .append("</p>\n");
            SvgChart limits = SvgChart.overTime("Limit over time, " + scenario.name() + " (seed " + seeds.get(0)
                    + ")", "limit");
            SvgChart goodput = SvgChart.overTime("Goodput over time, " + scenario.name() + " (seed " + seeds.get(0)
                    + ")", "calls/s");
            for (int r = 0; r < result.rows().size(); r++) {
                Comparison.Row row = result.rows().get(r);
                String color = COLORS[r % COLORS.length];
                int[] limit = row.firstSeed().limits();
                double[] x = new double[limit.length];
                double[] y = new double[limit.length];
                for (int i = 0; i < limit.length; i++) {
                    x[i] = i * 0.1;
                    y[i] = limit[i];
                }
                limits.line(row.contender(), color, x, y);
                double[] perSecond = row.firstSeed().goodputBySecond();
                double[] edges = new double[perSecond.length + 1];
                for (int i = 0; i < edges.length; i++) {
                    edges[i] = i;
                }
                goodput.steps(row.contender(), color, edges, perSecond);
            }
            html.append(limits.render()).append('\n').append(goodput.render()).append('\n');
        }
        html.append("<footer>Made by bulwark compare. Netflix concurrency-limits runs in its SimpleLimiter, "
                + "given the virtual clock as its nanoClock.</footer>\n</main>\n</body>\n</html>\n");
        return html.toString();
    }
}
