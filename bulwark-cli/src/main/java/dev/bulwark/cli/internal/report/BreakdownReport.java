package dev.bulwark.cli.internal.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.ClassBreakdown;
import dev.bulwark.cli.internal.sim.SimulationResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The outcomes per class of call (per priority with {@code --priority-mix}, per weight with {@code --weights}) in
 * the three report formats; one place, so that text, JSON and HTML show the same columns. Stateless.
 */
final class BreakdownReport {

    /** The refusals and other non-completions shown as columns, in this order. */
    private static final List<CallOutcome> ENDINGS = List.of(CallOutcome.REJECTED_QUEUE_FULL,
            CallOutcome.REJECTED_WAIT_TIMEOUT, CallOutcome.REJECTED_EVICTED, CallOutcome.TIMED_OUT,
            CallOutcome.CANCELLED);

    private static final String[] ENDING_HEADS = {"full", "wait t/o", "evicted", "timed out", "cancelled"};

    private BreakdownReport() {
    }

    /**
     * Writes a table per breakdown, each followed by a blank line; nothing when the calls were all alike.
     *
     * @param result the run
     * @param out where to write
     */
    static void text(SimulationResult result, PrintWriter out) {
        for (ClassBreakdown breakdown : result.breakdowns()) {
            out.printf(Locale.ROOT, "%-13s %9s %9s %9s %8s %8s %8s %8s %9s %9s %8s %8s %8s%n",
                    "By " + breakdown.dimension(), "offered", "admitted", "completed", "success", ENDING_HEADS[0],
                    ENDING_HEADS[1], ENDING_HEADS[2], ENDING_HEADS[3], ENDING_HEADS[4], "wait p50", "p99 ms",
                    "e2e p99");
            for (ClassBreakdown.Row row : breakdown.rows()) {
                out.printf(Locale.ROOT, "  %-11s %9s %9s %9s %8s %8s %8s %8s %9s %9s %8s %8s %8s%n", row.label(),
                        Numbers.count(row.counts().arrivals()), Numbers.count(row.admitted()),
                        Numbers.count(row.counts().count(CallOutcome.COMPLETED)), Numbers.percent(row.successShare()),
                        Numbers.count(row.counts().count(ENDINGS.get(0))),
                        Numbers.count(row.counts().count(ENDINGS.get(1))),
                        Numbers.count(row.counts().count(ENDINGS.get(2))),
                        Numbers.count(row.counts().count(ENDINGS.get(3))),
                        Numbers.count(row.counts().count(ENDINGS.get(4))),
                        Numbers.millis(row.queueWait().p50()), Numbers.millis(row.queueWait().p99()),
                        Numbers.millis(row.endToEnd().p99()));
            }
            out.println("  (success: completed of offered; wait: of the admitted calls, from the attempt that was "
                    + "admitted; e2e: of the completed calls, from arrival)");
            out.println();
        }
    }

    /**
     * Writes a section per breakdown.
     *
     * @param result the run
     * @param html where to append
     */
    static void html(SimulationResult result, StringBuilder html) {
        for (ClassBreakdown breakdown : result.breakdowns()) {
            html.append("<h2>Outcomes by ").append(Html.escape(breakdown.dimension()))
                    .append("</h2>\n<table>\n<tr><th>")
                    .append(Html.escape(breakdown.dimension()))
                    .append("</th><th>offered</th><th>admitted</th><th>completed</th><th>success</th>");
            for (CallOutcome ending : ENDINGS) {
                html.append("<th>").append(Html.escape(ending.label())).append("</th>");
            }
            html.append("<th>wait p50 (ms)</th><th>wait p99 (ms)</th><th>end-to-end p99 (ms)</th></tr>\n");
            for (ClassBreakdown.Row row : breakdown.rows()) {
                html.append("<tr><td>").append(Html.escape(row.label())).append("</td>");
                cell(html, Numbers.count(row.counts().arrivals()));
                cell(html, Numbers.count(row.admitted()));
                cell(html, Numbers.count(row.counts().count(CallOutcome.COMPLETED)));
                cell(html, Numbers.percent(row.successShare()));
                for (CallOutcome ending : ENDINGS) {
                    cell(html, Numbers.count(row.counts().count(ending)));
                }
                cell(html, Numbers.millis(row.queueWait().p50()));
                cell(html, Numbers.millis(row.queueWait().p99()));
                cell(html, Numbers.millis(row.endToEnd().p99()));
                html.append("</tr>\n");
            }
            html.append("</table>\n<p class=\"how\">Success: completed calls of those offered. Wait: how long the "
                    + "admitted calls waited for their slots. End to end: how long the completed calls took from their "
                    + "arrival.</p>\n");
        }
    }

    private static void cell(StringBuilder html, String value) {
        html.append("<td>").append(Html.escape(value)).append("</td>");
    }

    /**
     * Writes {@code "byPriority"} and {@code "byWeight"}: an array of rows each, or {@code null} when the run had no
     * such mix.
     *
     * @param result the run
     * @param json the generator, inside the result's object
     * @throws IOException when writing fails
     */
    static void json(SimulationResult result, JsonGenerator json) throws IOException {
        for (String dimension : new String[] {"priority", "weight"}) {
            String field = "by" + Character.toUpperCase(dimension.charAt(0)) + dimension.substring(1);
            ClassBreakdown breakdown = result.breakdowns().stream().filter(b -> b.dimension().equals(dimension))
                    .findFirst().orElse(null);
            if (breakdown == null) {
                json.writeNullField(field);
                continue;
            }
            json.writeArrayFieldStart(field);
            for (ClassBreakdown.Row row : breakdown.rows()) {
                json.writeStartObject();
                if (dimension.equals("weight")) {
                    json.writeNumberField(dimension, Integer.parseInt(row.label()));
                } else {
                    json.writeStringField(dimension, row.label());
                }
                json.writeNumberField("offered", row.counts().arrivals());
                json.writeNumberField("admitted", row.admitted());
                JsonReport.writeOutcomes(json, row.counts());
                JsonReport.number(json, "successShare", row.successShare());
                json.writeObjectFieldStart("queueWaitMs");
                JsonReport.number(json, "p50", row.queueWait().p50());
                JsonReport.number(json, "p99", row.queueWait().p99());
                JsonReport.number(json, "max", row.queueWait().max());
                json.writeNumberField("count", row.queueWait().count());
                json.writeEndObject();
                json.writeObjectFieldStart("endToEndMs");
                JsonReport.number(json, "p50", row.endToEnd().p50());
                JsonReport.number(json, "p99", row.endToEnd().p99());
                JsonReport.number(json, "max", row.endToEnd().max());
                json.writeNumberField("count", row.endToEnd().count());
                json.writeEndObject();
                json.writeEndObject();
            }
            json.writeEndArray();
        }
    }
}
