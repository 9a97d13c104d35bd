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
            out.println(sensitivity(result));
        }
    }

    /**
     * The oracle's sensitivity in one line: the swept fixed limits near the oracle's, each with its mean (worst
     * seed) share of the oracle's goodput, and what each seed's own best fixed limit gets.
     */
    static String sensitivity(Comparison.ScenarioResult result) {
        int oracle = result.oracleLimit();
        int reach = Math.max(3, oracle / 10); // the limits within 3 of the oracle's, or a tenth of it if more
        StringBuilder line = new StringBuilder("  oracle's sensitivity, fixed limits near it: ");
        String separator = "";
        for (var swept : result.sweep().subMap(oracle - reach, true, oracle + reach, true).entrySet()) {
            Comparison.Row fixed = swept.getValue();
            line.append(separator).append(String.format(Locale.ROOT, "%d %.1f%% (%.1f%%)", swept.getKey(),
                    100 * fixed.meanShare(), 100 * fixed.worstShare()));
            separator = ", ";
        }
        return line.append(String.format(Locale.ROOT, "; each seed's own best fixed limit %.1f%%",
                100 * result.bestPerSeedShare())).toString();
    }

    /** Beyond this many scenarios the summary turns: a row per scenario, so that it stays readable (the grid). */
    private static final int MAX_SCENARIO_COLUMNS = 12;

    /**
     * The markdown summary matrix: one row per limiter and one column per scenario, or, beyond
     * {@value #MAX_SCENARIO_COLUMNS} scenarios, one row per scenario and one column per limiter.
     */
    static List<String> summaryTable(List<Comparison.ScenarioResult> results) {
        if (results.size() > MAX_SCENARIO_COLUMNS) {
            return scenarioRows(results);
        }
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

    /** The summary with a row per scenario and a column per limiter (the oracle's limit first). */
    static List<String> scenarioRows(List<Comparison.ScenarioResult> results) {
        List<String> lines = new java.util.ArrayList<>();
        StringBuilder header = new StringBuilder("| scenario | oracle |");
        StringBuilder rule = new StringBuilder("| --- | --- |");
        List<Comparison.Row> first = results.get(0).rows();
        for (int r = 1; r < first.size(); r++) {
            header.append(' ').append(first.get(r).contender()).append(" |");
            rule.append(" --- |");
        }
        lines.add(header.toString());
        lines.add(rule.toString());
        for (Comparison.ScenarioResult result : results) {
            StringBuilder line = new StringBuilder("| ").append(result.scenario().name()).append(" | fixed ")
                    .append(result.oracleLimit()).append(" |");
            for (int r = 1; r < result.rows().size(); r++) {
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
                json.writeArrayFieldStart("oracleSweep");
                for (var swept : result.sweep().entrySet()) {
                    Comparison.Row fixed = swept.getValue();
                    json.writeStartObject();
                    json.writeNumberField("limit", swept.getKey());
                    json.writeNumberField("meanShareOfOracle", fixed.meanShare());
                    json.writeNumberField("worstShareOfOracle", fixed.worstShare());
                    writeArray(json, "shareOfOracle", fixed.shareOfOracle());
                    json.writeEndObject();
                }
                json.writeEndArray();
                json.writeNumberField("bestPerSeedShareOfOracle", result.bestPerSeedShare());
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

    /** Extra style for the compare page: the heat map, its key, and the small multiples. */
    private static final String COMPARE_STYLE = String.join("\n",
            "main{max-width:1280px}",
            ".heat td{text-align:center;padding:0}",
            ".heat td:first-child{text-align:left;padding:4px 12px}",
            ".heat a{display:block;padding:4px 8px;color:#0f172a;text-decoration:none}",
            ".heat a:hover{outline:2px solid #0f172a}",
            ".heat small{color:#334155}",
            ".key span{display:inline-block;padding:2px 8px;margin-right:6px;border-radius:4px}",
            ".multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:10px}",
            ".multiples figure{margin:0}",
            "figure:target .chart{outline:3px solid #2563eb}",
            "h2 a{color:inherit;text-decoration:none}");

    /** Heat-map bins, best first: the lower bound of the mean share, and the cell's colour. */
    private static final double[] HEAT_FROM = {0.97, 0.93, 0.85, 0.75, Double.NEGATIVE_INFINITY};
    private static final String[] HEAT_COLORS = {"#86efac", "#d9f99d", "#fde68a", "#fdba74", "#fca5a5"};
    private static final String[] HEAT_NAMES = {"97% or more", "93% to 97%", "85% to 93%", "75% to 85%",
        "below 75%"};

    /** Colour of the oracle's goodput in each small multiple, and of the capacity in the limit chart. */
    private static final String ORACLE_GREY = "#9ca3af";
    private static final String CAPACITY_COLOR = "#64748b";
    private static final String STEP_COLOR = "#be123c";

    /**
     * Renders the HTML page: a heat map (one row per scenario, one column per limiter, each cell the mean share of
     * the oracle's goodput and the worst seed's, coloured by bin, and a link to that limiter's time series), then
     * for each scenario its table, one chart of every limiter's limit over time (lines, with the capacity and a
     * mark at each capacity step), and small multiples of goodput over time, one per limiter against the oracle's
     * (first seed). No script: a cell opens its time series by an anchor within the page.
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
                .append("<title>bulwark compare</title>\n<style>\n").append(HtmlReport.STYLE).append('\n')
                .append(COMPARE_STYLE)
                .append("\n</style>\n</head>\n<body>\n<main>\n<h1>Adaptive limiters compared</h1>\n<p class=\"sub\">")
                .append(Html.escape(String.format(Locale.ROOT, "%d scenarios, seeds %s, %s of virtual time each; "
                        + "goodput as a share of the oracle's (the best fixed limit), mean of the seeds (worst "
                        + "seed)", results.size(), seeds, Durations.format(duration)))).append("</p>\n");
        heatMap(html, results);
        for (int i = 0; i < results.size(); i++) {
            Comparison.ScenarioResult result = results.get(i);
            CompareScenario scenario = result.scenario();
            html.append("<section id=\"s").append(i).append("\">\n<h2>").append(Html.escape(scenario.name()))
                    .append("</h2>\n<p class=\"how\">")
                    .append(Html.escape(scenario.description() + "; oracle: fixed " + result.oracleLimit()))
                    .append("</p>\n");
            scenarioTable(html, result);
            html.append("<p class=\"how\">").append(Html.escape(sensitivity(result).strip())).append("</p>\n");
            html.append(limitChart(result, seeds.get(0)).render()).append('\n');
            html.append("<div class=\"multiples\">\n");
            for (int r = 1; r < result.rows().size(); r++) {
                html.append("<figure id=\"c").append(i).append('-').append(r).append("\">")
                        .append(goodputChart(result, r, seeds.get(0)).render()).append("</figure>\n");
            }
            html.append("</div>\n</section>\n");
        }
        html.append("<footer>Made by bulwark compare. Netflix concurrency-limits runs in its SimpleLimiter, "
                + "given the virtual clock as its nanoClock.</footer>\n</main>\n</body>\n</html>\n");
        return html.toString();
    }

    /** The heat map: scenarios down, limiters across; each cell links to its small multiple. */
    private static void heatMap(StringBuilder html, List<Comparison.ScenarioResult> results) {
        if (results.isEmpty()) {
            return;
        }
        html.append("<p class=\"key\">");
        for (int b = 0; b < HEAT_COLORS.length; b++) {
            html.append("<span style=\"background:").append(HEAT_COLORS[b]).append("\">").append(HEAT_NAMES[b])
                    .append("</span>");
        }
        html.append(" of the oracle's goodput, mean of the seeds (worst seed in brackets). Open a cell for its "
                + "time series.</p>\n");
        html.append("<table class=\"heat\">\n<tr><th>scenario</th>");
        List<Comparison.Row> header = results.get(0).rows();
        for (int r = 1; r < header.size(); r++) {
            html.append("<th>").append(Html.escape(header.get(r).contender())).append("</th>");
        }
        html.append("</tr>\n");
        for (int i = 0; i < results.size(); i++) {
            Comparison.ScenarioResult result = results.get(i);
            html.append("<tr><td><a href=\"#s").append(i).append("\">").append(Html.escape(result.scenario().name()))
                    .append("</a></td>");
            for (int r = 1; r < result.rows().size(); r++) {
                Comparison.Row row = result.rows().get(r);
                html.append(String.format(Locale.ROOT, "<td style=\"background:%s\"><a href=\"#c%d-%d\" "
                        + "title=\"%s on %s\">%.0f%% <small>(%.0f%%)</small></a></td>", heatColor(row.meanShare()), i,
                        r, Html.escape(row.contender()), Html.escape(result.scenario().name()), 100 * row.meanShare(),
                        100 * row.worstShare()));
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n");
    }

    /**
     * Returns the heat-map colour of a mean share of the oracle's goodput.
     *
     * @param share the mean share
     * @return a CSS colour
     */
    static String heatColor(double share) {
        for (int b = 0; b < HEAT_FROM.length; b++) {
            if (share >= HEAT_FROM[b]) {
                return HEAT_COLORS[b];
            }
        }
        return HEAT_COLORS[HEAT_COLORS.length - 1];
    }

    private static void scenarioTable(StringBuilder html, Comparison.ScenarioResult result) {
        boolean steps = !result.scenario().steps().isEmpty();
        html.append("<table>\n<tr><th>limiter</th><th>mean</th><th>worst seed</th><th>p99 / oracle's</th>")
                .append(steps ? "<th>settle (worst seed)</th>" : "").append("</tr>\n");
        for (Comparison.Row row : result.rows()) {
            html.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%.1f%%</td><td>%.1f%%</td><td>%.2fx</td>",
                    Html.escape(row.contender()), 100 * row.meanShare(), 100 * row.worstShare(),
                    row.worstP99Ratio()));
            if (steps) {
                html.append("<td>").append(settle(row.worstSettleSeconds())).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n");
    }

    /**
     * The chart of every limiter's limit over time (first seed): lines, the capacity as a grey line, a mark at
     * each capacity step, and a legend that wraps.
     *
     * @param result a scenario's results
     * @param seed the first seed, for the title
     * @return the chart, not yet rendered
     */
    static SvgChart limitChart(Comparison.ScenarioResult result, long seed) {
        CompareScenario scenario = result.scenario();
        SvgChart chart = SvgChart.overTime("Limit over time, " + scenario.name() + " (seed " + seed + ")", "limit");
        for (int r = 0; r < result.rows().size(); r++) {
            Comparison.Row row = result.rows().get(r);
            int[] limit = row.firstSeed().limits();
            double[] x = new double[limit.length];
            double[] y = new double[limit.length];
            for (int i = 0; i < limit.length; i++) {
                x[i] = i * 0.1;
                y[i] = limit[i];
            }
            chart.line(row.contender(), COLORS[r % COLORS.length], x, y);
        }
        int samples = result.rows().get(0).firstSeed().limits().length;
        double end = (samples - 1) * 0.1;
        int[] capacities = scenario.capacities();
        double[] x = new double[2 * capacities.length];
        double[] y = new double[2 * capacities.length];
        for (int c = 0; c < capacities.length; c++) {
            x[2 * c] = c == 0 ? 0 : scenario.steps().get(c - 1).atFraction() * end;
            x[2 * c + 1] = c + 1 < capacities.length ? scenario.steps().get(c).atFraction() * end : end;
            y[2 * c] = capacities[c];
            y[2 * c + 1] = capacities[c];
        }
        chart.line("capacity", CAPACITY_COLOR, x, y);
        markSteps(chart, scenario, end);
        return chart;
    }

    /**
     * Returns the colours of the limit chart's series, in legend order: each limiter's, then the capacity's.
     *
     * @param result a scenario's results
     * @return CSS colours such as {@code #2563eb}
     */
    static List<String> seriesColors(Comparison.ScenarioResult result) {
        List<String> colors = new java.util.ArrayList<>();
        for (int r = 0; r < result.rows().size(); r++) {
            colors.add(COLORS[r % COLORS.length]);
        }
        colors.add(CAPACITY_COLOR);
        return colors;
    }

    /** One limiter's goodput per second against the oracle's (first seed), with the capacity steps marked. */
    private static SvgChart goodputChart(Comparison.ScenarioResult result, int r, long seed) {
        Comparison.Row row = result.rows().get(r);
        Comparison.Row oracle = result.rows().get(0);
        SvgChart chart = SvgChart.overTime("Goodput over time, " + result.scenario().name() + ", " + row.contender()
                + " (seed " + seed + ")", "calls/s").size(440, 220);
        double[] perSecond = row.firstSeed().goodputBySecond();
        double[] x = new double[perSecond.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = i + 0.5;
        }
        chart.line("oracle", ORACLE_GREY, x, oracle.firstSeed().goodputBySecond());
        chart.line(row.contender(), COLORS[r % COLORS.length], x, perSecond);
        chart.xRange(0, perSecond.length);
        markSteps(chart, result.scenario(), perSecond.length);
        return chart;
    }

    private static void markSteps(SvgChart chart, CompareScenario scenario, double end) {
        for (CompareScenario.CapacityStep step : scenario.steps()) {
            chart.verticalLine("capacity " + step.capacity(), STEP_COLOR, step.atFraction() * end);
        }
    }
}
