package dev.bulwark.cli.internal.report;

import dev.bulwark.cli.internal.sim.BulkheadEventCounts;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.LatencyBucket;
import dev.bulwark.cli.internal.sim.LatencySummary;
import dev.bulwark.cli.internal.sim.LittlesLaw;
import dev.bulwark.cli.internal.sim.OutcomeCounts;
import dev.bulwark.cli.internal.sim.LimitTrace;
import dev.bulwark.cli.internal.sim.Sample;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The report of a run as one self-contained HTML page: inline CSS and inline SVG charts, no script, no font,
 * image or style sheet from anywhere else, so it renders the same offline, attached to a ticket or years later.
 */
public final class HtmlReport {

    private static final String IN_FLIGHT = "#2563eb";
    private static final String QUEUED = "#d97706";
    private static final String LIMIT = "#1e3a8a";
    /** The adaptive limit's line, drawn over the in-flight line: a colour that stands apart from its blue. */
    private static final String ADAPTIVE_LIMIT = "#9333ea";
    private static final String CAPACITY = "#b91c1c";
    private static final String ARRIVALS = "#6b7280";
    private static final String COMPLETED = "#15803d";
    private static final String REJECTED = "#dc2626";
    private static final String END_TO_END = "#2563eb";
    private static final String QUEUE_WAIT = "#d97706";

    /** Charts show at most this many points over time; longer runs are thinned evenly. */
    private static final int MAX_POINTS = 600;
    /** Rates over time are averaged over this window, to show the trend rather than Poisson noise. */
    private static final double RATE_WINDOW_SECONDS = 0.5;

    /** The reports' style sheet: the simulator's pages and the lab's share it. */
    public static final String STYLE = String.join("\n",
            "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',Arial,sans-serif;",
            "  margin:0;background:#f8fafc;color:#0f172a;line-height:1.45}",
            "main{max-width:980px;margin:0 auto;padding:24px}",
            "h1{font-size:1.6rem;margin:0 0 4px}",
            "h2{font-size:1.15rem;margin:28px 0 6px}",
            ".sub{color:#475569;margin:0 0 16px}",
            ".verdict{padding:12px 16px;border-radius:8px;border-left:6px solid;margin:16px 0}",
            ".verdict.good{background:#ecfdf5;border-color:#15803d}",
            ".verdict.bad{background:#fef2f2;border-color:#b91c1c}",
            ".cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}",
            ".card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:10px 14px;min-width:150px;"
                    + "flex:1}",
            ".card .value{font-size:1.45rem;font-weight:600}",
            ".card .name{color:#475569;font-size:.85rem}",
            "table{border-collapse:collapse;background:#fff;margin:6px 0}",
            "th,td{padding:4px 12px;border-bottom:1px solid #e2e8f0;text-align:right}",
            "th:first-child,td:first-child{text-align:left}",
            "th{background:#f1f5f9;font-weight:600}",
            ".chart{width:100%;height:auto;background:#fff;border:1px solid #e2e8f0;border-radius:8px}",
            ".chart .plot{fill:#fff}",
            ".chart .grid{stroke:#e2e8f0;stroke-width:1}",
            ".chart .tick{font-size:11px;fill:#475569}",
            ".chart .axis{font-size:12px;fill:#334155}",
            ".chart .legend{font-size:12px;fill:#0f172a}",
            ".chart .label{font-size:11px}",
            ".chart .series{stroke-width:1.8}",
            ".chart .reference{stroke-width:1.3;stroke-dasharray:6 4}",
            ".how{color:#475569;font-size:.9rem;margin:4px 0 0}",
            "footer{color:#64748b;font-size:.8rem;margin-top:32px}");

    private HtmlReport() {
    }

    /**
     * Writes the page to {@code path}, replacing any file there.
     *
     * @param result the run
     * @param path where to write
     * @throws IOException when the file cannot be written
     */
    public static void write(SimulationResult result, Path path) throws IOException {
        Files.writeString(path, render(result), StandardCharsets.UTF_8);
    }

    /**
     * Renders the page.
     *
     * @param result the run
     * @return the whole HTML document
     */
    public static String render(SimulationResult result) {
        SimulationSettings settings = result.settings();
        Optional<BulkheadSettings> bulkhead = settings.bulkhead();
        OutcomeCounts counts = result.counts();
        // Without a bulkhead there is no queue, no limit and no refusal: the headings and captions say only what
        // the charts show.
        boolean guarded = bulkhead.isPresent();
        StringBuilder html = new StringBuilder(65_536);
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>bulwark simulate: ").append(Html.escape(title(settings))).append("</title>\n")
                .append("<style>\n").append(STYLE).append("\n</style>\n</head>\n<body>\n<main>\n");

        html.append("<h1>Bulkhead simulation</h1>\n<p class=\"sub\">").append(Html.escape(title(settings)))
                .append("</p>\n");
        String headline = Verdict.headline(result);
        html.append("<div class=\"verdict ").append(Verdict.healthy(result) ? "good" : "bad").append("\"><strong>")
                .append(Character.toUpperCase(headline.charAt(0))).append(headline.substring(1)).append(".</strong> ")
                .append(Html.escape(Verdict.explanation(result)));
        Verdict.caution(result).ifPresent(caution -> html.append(" <em>").append(Html.escape(caution)).append("</em>"));
        html.append("</div>\n");

        html.append("<div class=\"cards\">\n");
        card(html, Numbers.percent(counts.share(CallOutcome.COMPLETED)), "of calls served");
        card(html, Numbers.whole(result.goodput()) + "/s", "goodput (offered " + Numbers.whole(result.offeredRate())
                + "/s)");
        card(html, Durations.humanMillis(result.endToEnd().p99()), "p99 end to end");
        if (guarded) {
            card(html, Numbers.percent((double) counts.rejected() / Math.max(1, counts.arrivals())), "refused by the "
                    + "bulkhead");
        }
        card(html, Numbers.count(result.peakInFlight()), "peak in flight (capacity " + settings.downstreamCapacity()
                + ")");
        html.append("</div>\n");

        html.append("<h2>Setup</h2>\n<table>\n");
        row(html, "arrivals", settings.arrivals().describe() + " for " + Durations.format(settings.duration())
                + ", seed " + settings.seed());
        row(html, "downstream", TextReport.describeDownstream(settings));
        row(html, "bulkhead", bulkhead.map(BulkheadSettings::describe).orElse("none (--no-bulkhead)")
                + "; calls made with " + result.callStyle());
        TextReport.describePolicies(settings).ifPresent(policies -> row(html, "around it", policies + " ("
                + Numbers.count(result.retries()) + " retries, " + Numbers.count(result.timedOutAttempts())
                + " attempts timed out)"));
        settings.callMix().ifPresent(mix -> row(html, "calls", mix.describe()));
        row(html, "machine", TextReport.describeLag(result));
        row(html, "run", "took " + Durations.humanMillis(result.elapsed().toNanos() / 1e6) + " (arrivals, then up to "
                + Durations.format(settings.drain()) + " of drain)");
        html.append("</table>\n");

        html.append(guarded ? "<h2>In flight and queued over time</h2>\n" : "<h2>In flight over time</h2>\n");
        html.append(inFlightChart(result));
        html.append(guarded ? "<p class=\"how\">Blue: calls inside the downstream. Amber: calls waiting in the "
                + "bulkhead's queue. A healthy run stays at or under the dashed capacity line; without a bulkhead the "
                + "blue line climbs without bound once arrivals outpace the downstream.</p>\n"
                : "<p class=\"how\">Blue: calls inside the downstream. With no bulkhead nothing holds calls back: "
                + "once arrivals outpace the downstream, the blue line climbs past the dashed capacity line without "
                + "bound.</p>\n");

        if (LimitTrace.of(result.timeline(), settings.duration().toNanos() / 1e9).isPresent()) {
            html.append("<h2>Adaptive limit over time</h2>\n");
            html.append(limitChart(result));
            html.append("<p class=\"how\">Purple: the bulkhead's concurrency limit as the adaptive algorithm moved "
                    + "it. Blue: the calls actually in the downstream. A limit that settles near the dashed capacity "
                    + "line found the downstream's sweet spot without being told.</p>\n");
        }

        html.append(guarded ? "<h2>Throughput and rejections over time</h2>\n" : "<h2>Throughput over time</h2>\n");
        html.append(throughputChart(result));
        html.append(guarded ? "<p class=\"how\">Calls per second, averaged over half a second. Green (served) "
                + "holding near the downstream's capacity while grey (arriving) exceeds it is a bulkhead doing its "
                + "job: the excess goes to red (refused) quickly instead of slowing everyone down.</p>\n"
                : "<p class=\"how\">Calls per second, averaged over half a second. Grey: arriving; green: served. "
                + "With no bulkhead every call goes in, so when grey exceeds what the downstream serves, green falls "
                + "as every call slows down.</p>\n");

        html.append("<h2>Latency distribution</h2>\n");
        html.append(latencyChart(result));
        html.append("<p class=\"how\">How many calls took how long, on a logarithmic axis (each bar spans the "
                + "same factor, so equal areas hold equal counts). End to end: completed calls, from arrival to "
                + "completion.").append(guarded ? " Queue wait: admitted calls that had to wait for a slot." : "")
                .append("</p>\n");

        html.append("<h2>Outcomes</h2>\n<table>\n<tr><th>outcome</th><th>calls</th><th>share</th></tr>\n");
        html.append("<tr><td>arrived</td><td>").append(Numbers.count(counts.arrivals()))
                .append("</td><td></td></tr>\n");
        for (CallOutcome outcome : CallOutcome.values()) {
            if (!TextReport.shown(outcome, result)) {
                continue;
            }
            html.append("<tr><td>").append(Html.escape(outcome.label())).append("</td><td>")
                    .append(Numbers.count(counts.count(outcome))).append("</td><td>")
                    .append(Numbers.percent(counts.share(outcome))).append("</td></tr>\n");
        }
        html.append("</table>\n");
        BreakdownReport.html(result, html);

        html.append("<h2>Latency percentiles (ms)</h2>\n<table>\n<tr><th></th><th>p50</th><th>p90</th><th>p99</th>"
                + "<th>p99.9</th><th>max</th><th>mean</th><th>calls</th></tr>\n");
        if (bulkhead.isPresent()) {
            latencyRow(html, "queue wait", result.queueWait());
        }
        latencyRow(html, "end to end", result.endToEnd());
        html.append("</table>\n");

        LittlesLaw law = result.littlesLaw();
        html.append("<h2>Little's law</h2>\n<p>Mean calls in flight <em>L</em> = ")
                .append(Numbers.significant(law.meanInFlight())).append("; throughput &times; mean time in the "
                        + "downstream <em>X W</em> = ").append(Numbers.whole(law.throughputPerSecond()))
                .append("/s &times; ").append(Html.escape(Durations.humanMillis(law.meanTimeInDownstreamMillis())))
                .append(" = ").append(Numbers.significant(law.product())).append(". ")
                .append(law.holds() ? "They agree: the downstream was in a steady state."
                        : "They disagree: calls piled up faster than the downstream finished them.")
                .append("</p>\n");
        result.unexpectedFailure().ifPresent(failure -> html.append("<p><strong>Unexpected failure:</strong> ")
                .append(Html.escape(failure)).append("</p>\n"));

        html.append("<footer>Written by bulwark simulate. This page is self-contained: it loads nothing from "
                + "anywhere.</footer>\n</main>\n</body>\n</html>\n");
        return html.toString();
    }

    private static String title(SimulationSettings settings) {
        return settings.arrivals().describe() + ", " + settings.bulkhead().map(BulkheadSettings::describe)
                .orElse("no bulkhead") + ", downstream capacity " + settings.downstreamCapacity();
    }

    private static void card(StringBuilder html, String value, String name) {
        html.append("<div class=\"card\"><div class=\"value\">").append(Html.escape(value))
                .append("</div><div class=\"name\">").append(Html.escape(name)).append("</div></div>\n");
    }

    private static void row(StringBuilder html, String name, String value) {
        html.append("<tr><td>").append(Html.escape(name)).append("</td><td style=\"text-align:left\">")
                .append(Html.escape(value)).append("</td></tr>\n");
    }

    private static void latencyRow(StringBuilder html, String name, LatencySummary summary) {
        html.append("<tr><td>").append(Html.escape(name)).append("</td>");
        for (double value : new double[] {summary.p50(), summary.p90(), summary.p99(), summary.p999(), summary.max(),
                summary.mean()}) {
            html.append("<td>").append(Numbers.millis(value)).append("</td>");
        }
        html.append("<td>").append(Numbers.count(summary.count())).append("</td></tr>\n");
    }

    private static List<Sample> thinned(List<Sample> timeline) {
        if (timeline.size() <= MAX_POINTS) {
            return timeline;
        }
        int every = (timeline.size() + MAX_POINTS - 1) / MAX_POINTS;
        List<Sample> thinned = new ArrayList<>();
        for (int i = 0; i < timeline.size(); i += every) {
            thinned.add(timeline.get(i));
        }
        if (thinned.get(thinned.size() - 1) != timeline.get(timeline.size() - 1)) {
            thinned.add(timeline.get(timeline.size() - 1));
        }
        return thinned;
    }

    private static double[] seconds(List<Sample> samples) {
        return samples.stream().mapToDouble(Sample::elapsedSeconds).toArray();
    }

    private static String inFlightChart(SimulationResult result) {
        List<Sample> samples = thinned(result.timeline());
        SvgChart chart = SvgChart.overTime(result.settings().bulkhead().isPresent()
                ? "Calls in flight and queued over time" : "Calls in flight over time", "calls")
                .line("in flight", IN_FLIGHT, seconds(samples),
                        samples.stream().mapToDouble(Sample::inFlight).toArray());
        Optional<BulkheadSettings> bulkhead = result.settings().bulkhead();
        if (bulkhead.isPresent()) {
            chart.line("queued", QUEUED, seconds(samples), samples.stream().mapToDouble(Sample::queued).toArray());
            if (bulkhead.get().adaptive() == null) {
                chart.horizontalLine("limit " + bulkhead.get().limit(), LIMIT, bulkhead.get().limit());
            }
        }
        chart.horizontalLine("downstream capacity " + result.settings().downstreamCapacity(), CAPACITY,
                result.settings().downstreamCapacity());
        chart.verticalLine("arrivals stop", ARRIVALS, result.settings().duration().toNanos() / 1e9);
        return chart.render();
    }

    private static String limitChart(SimulationResult result) {
        List<Sample> samples = thinned(result.timeline());
        SvgChart chart = SvgChart.overTime("Adaptive limit and calls in flight over time", "calls")
                .line("in flight", IN_FLIGHT, seconds(samples),
                        samples.stream().mapToDouble(Sample::inFlight).toArray())
                .line("limit", ADAPTIVE_LIMIT, seconds(samples), samples.stream().mapToDouble(Sample::limit).toArray());
        chart.horizontalLine("downstream capacity " + result.settings().downstreamCapacity(), CAPACITY,
                result.settings().downstreamCapacity());
        chart.verticalLine("arrivals stop", ARRIVALS, result.settings().duration().toNanos() / 1e9);
        return chart.render();
    }

    private static String throughputChart(SimulationResult result) {
        List<Sample> all = result.timeline();
        List<Sample> samples = thinned(all);
        double[] x = seconds(samples);
        boolean guarded = result.settings().bulkhead().isPresent();
        SvgChart chart = SvgChart.overTime(guarded ? "Arrivals, served calls and refusals per second over time"
                : "Arrivals and served calls per second over time", "calls/s")
                .line("arriving", ARRIVALS, x, rate(all, samples, Sample::arrivals))
                .line("served", COMPLETED, x, rate(all, samples, Sample::completed));
        if (guarded) {
            chart.line("refused", REJECTED, x, rate(all, samples, Sample::rejected));
        }
        chart.verticalLine("arrivals stop", ARRIVALS, result.settings().duration().toNanos() / 1e9);
        return chart.render();
    }

    /** The rate of a cumulative count at each shown sample, over the window before it (from all samples). */
    private static double[] rate(List<Sample> all, List<Sample> shown, ToLongFunction<Sample> count) {
        double[] rates = new double[shown.size()];
        int from = 0;
        for (int i = 0; i < shown.size(); i++) {
            Sample to = shown.get(i);
            while (from < all.size() - 1 && to.elapsedSeconds() - all.get(from + 1).elapsedSeconds()
                    >= RATE_WINDOW_SECONDS) {
                from++;
            }
            Sample start = all.get(from);
            double seconds = to.elapsedSeconds() - start.elapsedSeconds();
            rates[i] = seconds <= 0 ? Double.NaN : (count.applyAsLong(to) - count.applyAsLong(start)) / seconds;
        }
        return rates;
    }

    private static String latencyChart(SimulationResult result) {
        SvgChart chart = SvgChart.overLogMillis(result.settings().bulkhead().isPresent()
                ? "Distribution of end-to-end latency and queue wait" : "Distribution of end-to-end latency", "calls");
        List<LatencyBucket> endToEnd = withoutSparseStart(result.endToEndDistribution());
        if (!endToEnd.isEmpty()) {
            addBuckets(chart, "end to end", END_TO_END, endToEnd);
        }
        // Calls admitted without waiting have a wait of 0 (the first bucket); drawing them would flatten the rest.
        // The table's queue-wait row counts every admitted call, so the legend says which part is drawn.
        List<LatencyBucket> waited = withoutSparseStart(result.queueWaitDistribution().stream()
                .filter(b -> b.fromMillis() >= 0.01).collect(Collectors.toList()));
        if (!waited.isEmpty()) {
            // The bulkhead's own count when it has one: the curve leaves out waits under 10 µs and a sparse start,
            // calls that waited all the same (the JSON's admittedAfterWaiting).
            long waitedCount = result.bulkheadEvents().map(BulkheadEventCounts::admittedAfterWaiting)
                    .orElseGet(() -> waited.stream().mapToLong(LatencyBucket::count).sum());
            addBuckets(chart, String.format(Locale.ROOT, "queue wait (the %,d of %,d admitted calls that waited)",
                    waitedCount, result.queueWait().count()), QUEUE_WAIT, waited);
        }
        LatencySummary summary = result.endToEnd();
        if (summary.count() > 0) {
            chart.verticalLine("p50", COMPLETED, summary.p50());
            chart.verticalLine("p99", REJECTED, summary.p99());
        }
        return chart.render();
    }

    /**
     * Drops the leading buckets that together hold less than 0.1 % of the calls, so that a few stray quick calls
     * do not stretch the axis over decades of nothing. The percentile table still counts them.
     */
    private static List<LatencyBucket> withoutSparseStart(List<LatencyBucket> buckets) {
        long total = buckets.stream().mapToLong(LatencyBucket::count).sum();
        long dropped = 0;
        int first = 0;
        while (first < buckets.size() - 1 && (dropped + buckets.get(first).count()) * 1000 < total) {
            dropped += buckets.get(first).count();
            first++;
        }
        return buckets.subList(first, buckets.size());
    }

    private static void addBuckets(SvgChart chart, String name, String color, List<LatencyBucket> buckets) {
        double[] edges = new double[buckets.size() + 1];
        double[] counts = new double[buckets.size()];
        for (int i = 0; i < buckets.size(); i++) {
            edges[i] = buckets.get(i).fromMillis();
            counts[i] = buckets.get(i).count();
        }
        edges[buckets.size()] = buckets.get(buckets.size() - 1).toMillis();
        chart.steps(name, color, edges, counts);
    }
}
