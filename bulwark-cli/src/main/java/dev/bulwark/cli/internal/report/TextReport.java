package dev.bulwark.cli.internal.report;

import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.LatencySummary;
import dev.bulwark.cli.internal.sim.LimitTrace;
import dev.bulwark.cli.internal.sim.LittlesLaw;
import dev.bulwark.cli.internal.sim.OutcomeCounts;
import dev.bulwark.cli.internal.sim.ExecutionMode;
import dev.bulwark.cli.internal.sim.SchedulingLag;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;

/** The report of one run for people: the scenario, the outcomes, latencies, the downstream's health, a verdict. */
public final class TextReport {

    private TextReport() {
    }

    /**
     * Writes the report.
     *
     * @param result the run
     * @param out where to write
     */
    public static void write(SimulationResult result, PrintWriter out) {
        SimulationSettings settings = result.settings();
        Optional<BulkheadSettings> bulkhead = settings.bulkhead();
        OutcomeCounts counts = result.counts();

        out.println("bulwark simulate: " + Durations.format(settings.duration()) + " of "
                + settings.arrivals().describe() + ", seed " + settings.seed());
        out.println("  downstream  " + describeDownstream(settings));
        out.println("  bulkhead    " + bulkhead.map(BulkheadSettings::describe).orElse("none (--no-bulkhead)")
                + "; calls made with " + result.callStyle());
        describePolicies(settings).ifPresent(policies -> out.println("  around it   " + policies));
        settings.callMix().ifPresent(mix -> out.println("  calls       " + mix.describe()));
        out.println();

        out.printf(Locale.ROOT, "%-26s %12s %10s%n", "Outcomes", "calls", "share");
        out.printf(Locale.ROOT, "  %-24s %12s%n", "arrived", Numbers.count(counts.arrivals()));
        for (CallOutcome outcome : CallOutcome.values()) {
            if (!shown(outcome, result)) {
                continue;
            }
            out.printf(Locale.ROOT, "  %-24s %12s %10s%n", outcome.label(), Numbers.count(counts.count(outcome)),
                    Numbers.percent(counts.share(outcome)));
        }
        out.println();
        BreakdownReport.text(result, out);
        ScheduleReport.text(result, out);
        out.printf(Locale.ROOT, "%-14s %s calls/s served, of %s/s offered (the run took %s)%n", "Goodput",
                Numbers.whole(result.goodput()), Numbers.whole(result.offeredRate()),
                Durations.humanMillis(result.elapsed().toNanos() / 1e6));
        out.println();

        out.printf(Locale.ROOT, "%-16s %8s %8s %8s %8s %8s %8s%n", "Latency (ms)", "p50", "p90", "p99", "p99.9", "max",
                "mean");
        if (bulkhead.isPresent()) {
            latencyRow(out, "queue wait", result.queueWait());
        }
        latencyRow(out, "end to end", result.endToEnd());
        out.println(bulkhead.isPresent() ? "  (queue wait of admitted calls, from the bulkhead's listener; end to end "
                + "of completed calls, from arrival)" : "  (end to end of completed calls, from arrival)");
        out.println();

        out.printf(Locale.ROOT, "%-14s peak %s in flight (capacity %d); completed calls spent %s there, %sx the "
                        + "unloaded %s%n", "Downstream", Numbers.count(result.peakInFlight()),
                settings.downstreamCapacity(), Durations.humanMillis(result.littlesLaw().meanTimeInDownstreamMillis()),
                Numbers.significant(result.slowdown()),
                Durations.humanMillis(settings.serviceTime().meanNanos() / 1e6));
        Optional<LimitTrace> limit = LimitTrace.of(result.timeline(), settings.duration().toNanos() / 1e9);
        if (bulkhead.isPresent()) {
            out.printf(Locale.ROOT, "%-14s peak %s in flight (%s), peak %s queued (queue %d)%n", "Bulkhead",
                    Numbers.count(result.peakInFlight()), Verdict.describeLimit(result),
                    Numbers.count(result.peakQueued()), bulkhead.get().queue());
        }
        if (limit.isPresent()) {
            LimitTrace trace = limit.get();
            out.printf(Locale.ROOT, "%-14s adaptive: started at %d, ended at %d; in the last %s s between %d and %d "
                            + "(mean %s), where it stayed from %s s on%n", "Limit", trace.start(), trace.end(),
                    Numbers.significant(trace.finalWindowSeconds()), trace.finalMin(), trace.finalMax(),
                    Numbers.significant(trace.finalMean()), Numbers.significant(trace.settledAfterSeconds()));
        }
        if (settings.retry().isPresent() || settings.timeout().isPresent()) {
            out.printf(Locale.ROOT, "%-14s %s retries (%s per arrival), %s attempts timed out%n", "Retry/timeout",
                    Numbers.count(result.retries()),
                    Numbers.significant((double) result.retries() / Math.max(1, counts.arrivals())),
                    Numbers.count(result.timedOutAttempts()));
        }
        LittlesLaw law = result.littlesLaw();
        out.printf(Locale.ROOT, "%-14s L = %s in flight; X W = %s/s x %s = %s: %s%n", "Little's law",
                Numbers.significant(law.meanInFlight()), Numbers.whole(law.throughputPerSecond()),
                Durations.humanMillis(law.meanTimeInDownstreamMillis()), Numbers.significant(law.product()),
                law.holds() ? "holds, a steady state" : "does not hold, calls piled up faster than they finished");
        out.printf(Locale.ROOT, "%-14s %s%n", "Machine", describeLag(result));
        result.unexpectedFailure().ifPresent(failure -> out.println("Unexpected failure: " + failure));
        out.println();
        out.println(Verdict.of(result));
        out.flush();
    }

    /**
     * Whether the outcome table has a row for the outcome: not a failure that never happened, and no refusal
     * without a bulkhead (there is no queue to be full and nobody to refuse).
     */
    static boolean shown(CallOutcome outcome, SimulationResult result) {
        if (outcome == CallOutcome.FAILED) {
            return result.counts().count(outcome) > 0;
        }
        return result.settings().bulkhead().isPresent() || result.counts().count(outcome) > 0
                || !outcome.isRejection();
    }

    private static void latencyRow(PrintWriter out, String name, LatencySummary summary) {
        out.printf(Locale.ROOT, "  %-14s %8s %8s %8s %8s %8s %8s%n", name, Numbers.millis(summary.p50()),
                Numbers.millis(summary.p90()), Numbers.millis(summary.p99()), Numbers.millis(summary.p999()),
                Numbers.millis(summary.max()), Numbers.millis(summary.mean()));
    }

    /**
     * Describes the retry and the timeout around the bulkhead.
     *
     * @param settings the run's settings
     * @return for example {@code retry up to 2 times at once; timeout 200ms per attempt}, or empty for neither
     */
    static Optional<String> describePolicies(SimulationSettings settings) {
        StringBuilder text = new StringBuilder();
        settings.retry().ifPresent(retry -> text.append(retry.describe()));
        settings.timeout().ifPresent(timeout -> text.append(text.length() > 0 ? "; " : "").append("timeout ")
                .append(Durations.format(timeout)).append(" per attempt"));
        return text.length() == 0 ? Optional.empty() : Optional.of(text.toString());
    }

    /**
     * Describes how punctual the simulator was.
     *
     * @param result the run
     * @return one line
     */
    static String describeLag(SimulationResult result) {
        if (result.settings().mode() == ExecutionMode.VIRTUAL_TIME) {
            return "virtual time: every event happened exactly when due, no machine lateness";
        }
        SchedulingLag lag = result.schedulingLag();
        String arrivals = Double.isNaN(lag.arrivalMax()) ? ""
                : "arrivals up to " + Durations.humanMillis(lag.arrivalMax()) + " late (p99 "
                        + Durations.humanMillis(lag.arrivalP99()) + "), ";
        String completions = "completions up to " + Durations.humanMillis(lag.completionMax()) + " late";
        return (lag.punctual() ? "punctual: " : "busy: ") + arrivals + completions;
    }

    static String describeDownstream(SimulationSettings settings) {
        StringBuilder text = new StringBuilder("service time ").append(settings.serviceTime().spec())
                .append(", capacity ").append(settings.downstreamCapacity()).append(", degradation ")
                .append(Numbers.plain(settings.degradation()));
        if (settings.arrivals() instanceof ArrivalModel.OpenLoop) {
            double offered = settings.offeredConcurrency().orElse(0.0);
            text.append(String.format(Locale.ROOT, "; offered load %s calls in flight (%.0f %% of capacity)",
                    Numbers.significant(offered), 100 * offered / settings.downstreamCapacity()));
        }
        return text.toString();
    }
}
