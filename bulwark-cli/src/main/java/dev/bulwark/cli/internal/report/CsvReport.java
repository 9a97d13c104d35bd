package dev.bulwark.cli.internal.report;

import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.LatencySummary;
import dev.bulwark.cli.internal.sim.OutcomeCounts;
import dev.bulwark.cli.internal.sim.SimulationResult;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs as CSV (RFC 4180): a header line, then one line per run with the same columns for {@code simulate} (one
 * run) and {@code sweep} (one per setting, plus a {@code meetsTargets} column). Durations in milliseconds.
 * Empty cells for values that do not exist (no bulkhead, no completed call).
 */
public final class CsvReport {

    private static final List<String> COLUMNS = List.of("limit", "queue", "maxWaitMs", "arrivals", "completed",
            "rejectedQueueFull", "rejectedWaitTimeout", "rejectedEvicted", "timedOut", "cancelled", "failed",
            "goodputPerSecond", "unservedShare", "queueWaitP50Ms", "queueWaitP99Ms", "endToEndP50Ms", "endToEndP90Ms",
            "endToEndP99Ms", "endToEndP999Ms", "endToEndMaxMs", "retries", "timedOutAttempts", "peakInFlight",
            "peakQueued", "meanInFlight", "slowdown", "healthy",
            "schedulingLagMaxMs", "seed");

    private CsvReport() {
    }

    /**
     * Writes the header line.
     *
     * @param out where to write
     * @param withTargets whether rows carry the sweep's {@code meetsTargets} column
     */
    public static void writeHeader(PrintWriter out, boolean withTargets) {
        List<String> columns = new ArrayList<>(COLUMNS);
        if (withTargets) {
            columns.add("meetsTargets");
        }
        out.println(String.join(",", columns));
    }

    /**
     * Writes one run.
     *
     * @param out where to write
     * @param result the run
     * @param meetsTargets for a sweep, whether the run met the targets; {@code null} for no such column
     */
    public static void writeRow(PrintWriter out, SimulationResult result, Boolean meetsTargets) {
        List<String> cells = new ArrayList<>();
        BulkheadSettings bulkhead = result.settings().bulkhead().orElse(null);
        cells.add(bulkhead == null ? "" : Integer.toString(bulkhead.limit()));
        cells.add(bulkhead == null ? "" : Integer.toString(bulkhead.queue()));
        cells.add(bulkhead == null || bulkhead.maxWait() == null ? "" : number(bulkhead.maxWait().toNanos() / 1e6));
        OutcomeCounts counts = result.counts();
        cells.add(Long.toString(counts.arrivals()));
        cells.add(Long.toString(counts.count(CallOutcome.COMPLETED)));
        cells.add(Long.toString(counts.count(CallOutcome.REJECTED_QUEUE_FULL)));
        cells.add(Long.toString(counts.count(CallOutcome.REJECTED_WAIT_TIMEOUT)));
        cells.add(Long.toString(counts.count(CallOutcome.REJECTED_EVICTED)));
        cells.add(Long.toString(counts.count(CallOutcome.TIMED_OUT)));
        cells.add(Long.toString(counts.count(CallOutcome.CANCELLED)));
        cells.add(Long.toString(counts.count(CallOutcome.FAILED)));
        cells.add(number(result.goodput()));
        cells.add(number(counts.unservedShare()));
        LatencySummary wait = result.queueWait();
        cells.add(number(wait.p50()));
        cells.add(number(wait.p99()));
        LatencySummary endToEnd = result.endToEnd();
        cells.add(number(endToEnd.p50()));
        cells.add(number(endToEnd.p90()));
        cells.add(number(endToEnd.p99()));
        cells.add(number(endToEnd.p999()));
        cells.add(number(endToEnd.max()));
        cells.add(Long.toString(result.retries()));
        cells.add(Long.toString(result.timedOutAttempts()));
        cells.add(Integer.toString(result.peakInFlight()));
        cells.add(Integer.toString(result.peakQueued()));
        cells.add(number(result.littlesLaw().meanInFlight()));
        cells.add(number(result.slowdown()));
        cells.add(Boolean.toString(Verdict.healthy(result)));
        cells.add(number(result.schedulingLag().worst()));
        cells.add(Long.toString(result.settings().seed()));
        if (meetsTargets != null) {
            cells.add(meetsTargets.toString());
        }
        out.println(String.join(",", cells));
    }

    private static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "";
        }
        return String.format(Locale.ROOT, "%.4f", value).replaceAll("\\.?0+$", "");
    }
}
