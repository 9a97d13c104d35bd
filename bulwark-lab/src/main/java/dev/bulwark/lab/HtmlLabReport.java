package dev.bulwark.lab;

import dev.bulwark.cli.internal.report.Html;
import dev.bulwark.cli.internal.report.HtmlReport;
import dev.bulwark.cli.internal.report.SvgChart;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An experiment's report as one self-contained HTML page, in the simulator's style (its style sheet and its inline
 * SVG charts; no script and nothing fetched from elsewhere): the figures of {@link Report#text} as tables, and two
 * charts over the run's one-second windows, every guard on each: the requests that succeeded per second, against the
 * probe's capacity, and the p90 latency, against the client's timeout. The stages' boundaries are marked on both.
 */
final class HtmlLabReport {

    /**
     * One colour per guard, in {@link GuardMode}'s order: the unguarded run in red, Bulwark's in blue and purple. The
     * shedding experiment's edge modes take the same hues, dark for the critical requests and light for the
     * sheddable ones.
     */
    private static final Map<String, String> GUARD_COLORS = Map.ofEntries(
            Map.entry(GuardMode.NONE.label(), "#b91c1c"),
            Map.entry(GuardMode.FIXED.label(), "#2563eb"),
            Map.entry(GuardMode.SELF_TUNING.label(), "#9333ea"),
            Map.entry(GuardMode.RESILIENCE4J.label(), "#d97706"),
            Map.entry(GuardMode.SPRING_BLOCK.label(), "#15803d"),
            Map.entry(GuardMode.SPRING_REJECT.label(), "#0891b2"),
            Map.entry(EdgeMode.NONE.label() + " critical", "#b91c1c"),
            Map.entry(EdgeMode.NONE.label() + " sheddable", "#f87171"),
            Map.entry(EdgeMode.SHED.label() + " critical", "#2563eb"),
            Map.entry(EdgeMode.SHED.label() + " sheddable", "#93c5fd"),
            Map.entry(EdgeMode.PRIORITIES.label() + " critical", "#9333ea"),
            Map.entry(EdgeMode.PRIORITIES.label() + " sheddable", "#d8b4fe"),
            Map.entry(EdgeMode.PRIORITIES_429.label() + " critical", "#15803d"),
            Map.entry(EdgeMode.PRIORITIES_429.label() + " sheddable", "#86efac"));
    private static final String REFERENCE = "#475569";
    /** The runs table has thirteen columns: smaller type, and a scroll bar rather than an overflow on a narrow page. */
    private static final String LAB_STYLE = ".wide{overflow-x:auto}\n.wide table{font-size:.85rem}\n"
            + ".wide td,.wide th{white-space:nowrap;padding:4px 8px}";

    private HtmlLabReport() {
    }

    /**
     * Renders the page.
     *
     * @param result the experiment's figures
     * @return the whole HTML document
     */
    static String render(LabExperiment.Result result) {
        String title = "bulwark-lab " + result.scenario().command() + (result.quick() ? " --quick" : "");
        StringBuilder html = new StringBuilder(65_536);
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>").append(Html.escape(title)).append("</title>\n<style>\n")
                .append(HtmlReport.STYLE).append('\n').append(LAB_STYLE)
                .append("\n</style>\n</head>\n<body>\n<main>\n");
        html.append("<h1>").append(Html.escape(title)).append("</h1>\n<p class=\"sub\">")
                .append(Html.escape(String.format(Locale.ROOT, "%s, %d cores, PostgreSQL from %s", result.started(),
                        result.cores(), result.postgresBin()))).append("</p>\n");
        html.append("<div class=\"cards\">\n");
        card(html, String.format(Locale.ROOT, "%.0f/s", result.capacityPerSecond()), "capacity (probe's best)");
        card(html, String.format(Locale.ROOT, "%.2f ms", result.workMillisAlone()),
                result.scenario().dependency() + " time alone");
        if (result.scenario() == Scenario.SHEDDING) {
            card(html, Integer.toString(LabApplication.POOL_SIZE), "the edge's limit (the pool's size)");
        } else {
            card(html, Integer.toString(result.fixedLimit()), "fixed limit (by "
                    + (result.fixedSizedBy().equals("little") ? "Little's law)" : "the simulator)"));
        }
        card(html, LabExperiment.CLIENT_TIMEOUT.toMillis() + " ms", "client timeout");
        html.append("</div>\n");
        html.append("<p class=\"how\">").append(Html.escape(Report.sizing(result).trim())).append("</p>\n");
        html.append("<p class=\"how\">");
        if (result.scenario() == Scenario.SHEDDING) {
            html.append(Html.escape(String.format(Locale.ROOT, "Critical requests at %.0f/s (%.1fx) throughout, beside"
                    + " the sheddable ones' schedule:", result.criticalPerSecond(), Scenario.CRITICAL_RATE)));
        } else {
            html.append("Schedule:");
        }
        for (Stage stage : result.stages()) {
            html.append(Html.escape(String.format(Locale.ROOT, " %s %.0f/s for %d s;", stage.name(),
                    stage.fromRate(), stage.length().toSeconds())));
        }
        html.append(" load average (1 min) at the start and after each run: ")
                .append(Html.escape(result.loadAverages().toString().replaceAll("[\\[\\]]", ""))).append("</p>\n");

        html.append("<h2>").append(Html.escape(result.stages().get(1).name())).append(", by guard</h2>\n");
        runsTable(html, result.runs());
        html.append("<h2>Goodput by stage</h2>\n<table>\n<tr><th>guard</th>");
        for (Stage stage : result.stages()) {
            html.append("<th>").append(Html.escape(stage.name())).append("</th>");
        }
        html.append("</tr>\n");
        for (RunResult run : result.runs()) {
            html.append("<tr><td>").append(Html.escape(run.guard())).append("</td>");
            for (int i = 0; i < run.stageGoodputPerSecond().size(); i++) {
                html.append("<td>").append(String.format(Locale.ROOT, "%.0f/s (%.0f%%)",
                        run.stageGoodputPerSecond().get(i), 100 * run.stageOkShare().get(i))).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table>\n");

        html.append("<h2>Goodput over time</h2>\n").append(goodputChart(result).render());
        html.append("<p class=\"how\">Requests that succeeded within the client's timeout, per second of due time.")
                .append("</p>\n");
        html.append("<h2>Latency over time</h2>\n").append(latencyChart(result).render());
        html.append("<p class=\"how\">The 90th percentile of each second's requests, every outcome; a request the")
                .append(" client gave up on counts as the timeout.</p>\n");
        if (!result.simVsReal().isEmpty()) {
            simVsRealTable(html, result.simVsReal());
        }
        html.append("<footer>Made by <code>java -jar bulwark-lab/target/bulwark-lab.jar ")
                .append(Html.escape(result.scenario().command())).append(result.quick() ? " --quick" : "")
                .append("</code>; the same figures are in ").append(Html.escape(result.scenario().command()))
                .append(".txt and .json beside this page (docs/lab.md).</footer>\n</main>\n</body>\n</html>\n");
        return html.toString();
    }

    private static void card(StringBuilder html, String value, String name) {
        html.append("<div class=\"card\"><div class=\"value\">").append(Html.escape(value))
                .append("</div><div class=\"name\">").append(Html.escape(name)).append("</div></div>\n");
    }

    private static void runsTable(StringBuilder html, List<RunResult> runs) {
        html.append("<div class=\"wide\"><table>\n<tr>");
        for (String column : new String[] {"guard", "limit", "offered/s", "goodput/s", "p50", "p99", "ok p99",
            "refused", "pool TO", "client TO", "errors", "recovery", "lag"}) {
            html.append("<th>").append(Html.escape(column)).append("</th>");
        }
        html.append("</tr>\n");
        for (RunResult run : runs) {
            html.append("<tr><td>").append(Html.escape(run.guard())).append("</td>");
            for (String cell : new String[] {Report.limit(run, " → "),
                String.format(Locale.ROOT, "%.0f", run.surgeOfferedPerSecond()),
                String.format(Locale.ROOT, "%.0f", run.surgeGoodputPerSecond()),
                String.format(Locale.ROOT, "%.1f", run.surgeP50Millis()),
                String.format(Locale.ROOT, "%.1f", run.surgeP99Millis()),
                String.format(Locale.ROOT, "%.1f", run.surgeOkP99Millis()),
                Integer.toString(run.surgeOutcomes().get(Outcome.REFUSED)), Long.toString(run.poolTimeouts()),
                Integer.toString(run.surgeOutcomes().get(Outcome.CLIENT_TIMEOUT)),
                Integer.toString(run.surgeOutcomes().get(Outcome.ERROR)), Report.recovery(run),
                String.format(Locale.ROOT, "%.1f", run.surgeGeneratorLagP99Millis())}) {
                html.append("<td>").append(Html.escape(cell)).append("</td>");
            }
            html.append("</tr>\n");
        }
        html.append("</table></div>\n<p class=\"how\">Latencies in milliseconds, every outcome (ok p99: successes")
                .append(" only); TO: timeouts (HikariCP's pool, the client's); recovery: from the stage's end to two")
                .append(" healthy seconds in a row; lag: the load generator's own p99 lateness.</p>\n");
    }

    private static void simVsRealTable(StringBuilder html, List<SimVsReal> comparisons) {
        html.append("<h2>The simulator against the lab</h2>\n<table>\n<tr><th>guard</th><th>stage</th>")
                .append("<th>goodput/s sim / lab</th><th>ratio</th><th>p99 ms sim / lab</th><th>ratio</th>")
                .append("<th>within the bars</th></tr>\n");
        for (SimVsReal comparison : comparisons) {
            for (SimVsReal.Row row : comparison.stages()) {
                html.append("<tr><td>").append(Html.escape(comparison.guard())).append("</td><td>")
                        .append(Html.escape(row.stage())).append("</td><td>")
                        .append(String.format(Locale.ROOT, "%.0f / %.0f</td><td>%.2f</td><td>%.0f / %.0f</td>"
                                + "<td>%.2f</td><td>%s</td></tr>%n", row.predictedGoodput(), row.measuredGoodput(),
                                row.goodputRatio(), row.predictedP99Millis(), row.measuredP99Millis(),
                                row.p99Ratio(), row.withinBar() ? "yes" : "no"));
            }
        }
        html.append("</table>\n<p class=\"how\">The bars: goodput within 10% and p99 within 20% of the measured")
                .append(" figures (issue 42).</p>\n");
    }

    private static SvgChart goodputChart(LabExperiment.Result result) {
        SvgChart chart = SvgChart.overTime("Requests that succeeded per second, by guard", "ok/s");
        for (RunResult run : result.runs()) {
            chart.line(run.guard(), color(run.guard()), seconds(run),
                    run.windows().stream().mapToDouble(RunResult.Window::ok).toArray());
        }
        chart.horizontalLine(String.format(Locale.ROOT, "capacity %.0f/s", result.capacityPerSecond()), REFERENCE,
                result.capacityPerSecond());
        return stageLines(chart, result.stages());
    }

    private static SvgChart latencyChart(LabExperiment.Result result) {
        SvgChart chart = SvgChart.overTime("p90 latency per second, by guard", "p90 ms");
        for (RunResult run : result.runs()) {
            chart.line(run.guard(), color(run.guard()), seconds(run),
                    run.windows().stream().mapToDouble(RunResult.Window::p90Millis).toArray());
        }
        chart.horizontalLine("client timeout", REFERENCE, LabExperiment.CLIENT_TIMEOUT.toMillis());
        return stageLines(chart, result.stages());
    }

    /** Marks where each stage after the first begins; the x axis spans the whole schedule. */
    private static SvgChart stageLines(SvgChart chart, List<Stage> stages) {
        double at = 0;
        for (Stage stage : stages) {
            if (at > 0) {
                chart.verticalLine(stage.name(), REFERENCE, at);
            }
            at += stage.length().toMillis() / 1000.0;
        }
        return chart.xRange(0, at);
    }

    /** A window is plotted at its middle: the second from 3 to 4 s at 3.5 s. */
    private static double[] seconds(RunResult run) {
        return run.windows().stream().mapToDouble(window -> window.second() + 0.5).toArray();
    }

    private static String color(String guard) {
        return GUARD_COLORS.getOrDefault(guard, REFERENCE);
    }
}
