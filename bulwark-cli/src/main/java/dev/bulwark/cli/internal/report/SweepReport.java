package dev.bulwark.cli.internal.report;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import dev.bulwark.cli.internal.sim.SweepResult;
import dev.bulwark.cli.internal.sim.SweepTargets;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** The report of a sweep: one row per setting and the conclusion, as text, JSON or CSV. */
public final class SweepReport {

    private SweepReport() {
    }

    /**
     * Writes the sweep as a table for people, followed by the conclusion.
     *
     * @param sweep the sweep
     * @param out where to write
     */
    public static void writeText(SweepResult sweep, PrintWriter out) {
        SimulationSettings scenario = sweep.scenario();
        out.println("bulwark sweep: " + sweep.rows().size() + " settings of " + Durations.format(scenario.duration())
                + " each, " + scenario.arrivals().describe() + ", seed " + scenario.seed());
        out.println("  downstream  " + TextReport.describeDownstream(scenario));
        String maxWait = sweep.rows().isEmpty() ? "" : sweep.rows().get(0).setting().maxWait() == null ? "unbounded"
                : Durations.format(sweep.rows().get(0).setting().maxWait());
        out.println("  bulkhead    max wait " + maxWait + "; calls made with "
                + (sweep.rows().isEmpty() ? "-" : sweep.rows().get(0).result().callStyle()));
        out.println("  targets     " + describeTargets(sweep.targets()));
        out.println();
        out.printf(Locale.ROOT, "%6s %6s %10s %9s %9s %9s %9s %10s %8s %8s %6s%n", "limit", "queue", "served/s",
                "unserved", "p50 ms", "p99 ms", "wait p99", "in flight", "healthy", "late ms", "meets");
        for (SweepResult.Row row : sweep.rows()) {
            SimulationResult result = row.result();
            BulkheadSettings setting = row.setting();
            out.printf(Locale.ROOT, "%6d %6d %10s %9s %9s %9s %9s %10s %8s %8s %6s%n", setting.limit(),
                    setting.queue(), Numbers.whole(result.goodput()), Numbers.percent(result.counts().unservedShare()),
                    Numbers.millis(result.endToEnd().p50()), Numbers.millis(result.endToEnd().p99()),
                    Numbers.millis(result.queueWait().p99()), Numbers.count(result.peakInFlight()),
                    Verdict.healthy(result) ? "yes" : "no", Numbers.millis(result.schedulingLag().worst()),
                    sweep.targets().any() ? (row.meetsTargets() ? "yes" : "no") : "-");
        }
        out.println("  (served/s: goodput; unserved: rejected, timed out or cancelled; in flight: peak at the "
                + "downstream;");
        out.println("   late ms: how late the simulator ran on this machine, see 'Machine' in simulate's report)");
        out.println();
        out.println(Verdict.wrap(conclusion(sweep) + caution(sweep).map(text -> " " + text).orElse(""), 100));
        out.flush();
    }

    /**
     * Writes the sweep as one JSON object: the targets, one entry per setting (as {@code simulate --format json}
     * without the time series), the recommended setting and the conclusion.
     *
     * @param sweep the sweep
     * @param out where to write
     * @throws UncheckedIOException when writing fails
     */
    public static void writeJson(SweepResult sweep, PrintWriter out) {
        try (JsonGenerator json = JsonReport.generator(out)) {
            json.writeStartObject();
            json.writeObjectFieldStart("targets");
            if (sweep.targets().p99() == null) {
                json.writeNullField("p99Ms");
            } else {
                json.writeNumberField("p99Ms", sweep.targets().p99().toNanos() / 1e6);
            }
            if (sweep.targets().maxUnserved() == null) {
                json.writeNullField("maxUnservedShare");
            } else {
                json.writeNumberField("maxUnservedShare", sweep.targets().maxUnserved());
            }
            json.writeEndObject();
            json.writeArrayFieldStart("runs");
            for (SweepResult.Row row : sweep.rows()) {
                json.writeStartObject();
                json.writeNumberField("limit", row.setting().limit());
                json.writeNumberField("queue", row.setting().queue());
                json.writeBooleanField("meetsTargets", row.meetsTargets());
                json.writeFieldName("result");
                JsonReport.writeResult(json, row.result(), false);
                json.writeEndObject();
            }
            json.writeEndArray();
            Optional<SweepResult.Row> recommended = sweep.recommended();
            if (recommended.isPresent()) {
                json.writeObjectFieldStart("recommended");
                json.writeNumberField("limit", recommended.get().setting().limit());
                json.writeNumberField("queue", recommended.get().setting().queue());
                json.writeEndObject();
            } else {
                json.writeNullField("recommended");
            }
            json.writeStringField("conclusion", conclusion(sweep));
            Optional<String> caution = caution(sweep);
            if (caution.isPresent()) {
                json.writeStringField("caution", caution.get());
            } else {
                json.writeNullField("caution");
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        JsonReport.newline(out);
    }

    /**
     * Writes the sweep as CSV: a header and one row per setting, with a {@code meetsTargets} column.
     *
     * @param sweep the sweep
     * @param out where to write
     */
    public static void writeCsv(SweepResult sweep, PrintWriter out) {
        CsvReport.writeHeader(out, true);
        for (SweepResult.Row row : sweep.rows()) {
            CsvReport.writeRow(out, row.result(), row.meetsTargets());
        }
        out.flush();
    }

    /**
     * Warns when the machine was too busy during some runs for their figures to be precise.
     *
     * @param sweep the sweep
     * @return a sentence, or empty when every run kept its schedule
     */
    public static Optional<String> caution(SweepResult sweep) {
        List<SweepResult.Row> late = sweep.rows().stream().filter(row -> !row.result().schedulingLag().punctual())
                .collect(Collectors.toList());
        if (late.isEmpty()) {
            return Optional.empty();
        }
        double worst = late.stream().mapToDouble(row -> row.result().schedulingLag().worst()).max().orElse(0);
        return Optional.of(String.format(Locale.ROOT, "Caution: the machine was busy during %d of the %d runs (the "
                + "simulator ran up to %s late), so their figures are noisier; repeat on a quieter machine before "
                + "relying on close calls.", late.size(), sweep.rows().size(), Durations.humanMillis(worst)));
    }

    static String describeTargets(SweepTargets targets) {
        if (!targets.any()) {
            return "none (give --target-p99 and/or --max-reject)";
        }
        StringBuilder text = new StringBuilder();
        targets.p99Target().ifPresent(p99 -> text.append("p99 <= ").append(Durations.humanMillis(p99.toNanos() / 1e6)));
        targets.maxUnservedTarget().ifPresent(share -> text.append(text.length() > 0 ? ", " : "")
                .append("unserved <= ").append(Numbers.percent(share)));
        return text.toString();
    }

    /**
     * Names the smallest setting that met the targets, or says that none did and why.
     *
     * @param sweep the sweep
     * @return one or more sentences
     */
    public static String conclusion(SweepResult sweep) {
        SweepTargets targets = sweep.targets();
        List<SweepResult.Row> rows = sweep.rows();
        if (!targets.any()) {
            return "No targets given: add --target-p99 and/or --max-reject to have the smallest setting that meets "
                    + "them named.";
        }
        Optional<SweepResult.Row> recommended = sweep.recommended();
        if (recommended.isPresent()) {
            SweepResult.Row row = recommended.get();
            return String.format(Locale.ROOT, "Smallest setting that meets the targets (%s): --limit %d --queue %d "
                    + "(p99 %s, %s unserved, %s calls/s served).", describeTargets(targets), row.setting().limit(),
                    row.setting().queue(), Durations.humanMillis(row.result().endToEnd().p99()),
                    Numbers.percent(row.result().counts().unservedShare()), Numbers.whole(row.result().goodput()));
        }
        StringBuilder why = new StringBuilder("No setting meets the targets (" + describeTargets(targets) + "). ");
        List<SweepResult.Row> servingEnough = rows.stream().filter(row -> targets.meetsUnserved(row.result()))
                .collect(Collectors.toList());
        if (servingEnough.isEmpty()) {
            SweepResult.Row fewest = rows.stream()
                    .min(Comparator.comparingDouble(row -> row.result().counts().unservedShare())).orElseThrow();
            why.append(String.format(Locale.ROOT, "Every setting left more than %s of calls unserved; the fewest "
                    + "was %s (--limit %d --queue %d).", Numbers.percent(targets.maxUnserved()),
                    Numbers.percent(fewest.result().counts().unservedShare()), fewest.setting().limit(),
                    fewest.setting().queue()));
            SimulationSettings scenario = sweep.scenario();
            Optional<Double> offered = scenario.offeredConcurrency();
            if (offered.isPresent() && offered.get() > scenario.downstreamCapacity()) {
                why.append(String.format(Locale.ROOT, " The offered load (%s calls' worth) exceeds the downstream's "
                        + "capacity (%d): about %s of calls must be refused, or the downstream overloaded, whatever "
                        + "the bulkhead does.", Numbers.significant(offered.get()), scenario.downstreamCapacity(),
                        Numbers.percent(1 - scenario.downstreamCapacity() / offered.get())));
            } else {
                why.append(" Try larger --limit or --queue values, or a longer --max-wait.");
            }
            return why.toString();
        }
        SweepResult.Row fastest = servingEnough.stream()
                .min(Comparator.comparingDouble(row -> row.result().endToEnd().p99())).orElseThrow();
        why.append(String.format(Locale.ROOT, "%s a p99 of %s at best (--limit %d --queue %d), above the %s "
                + "target. Smaller queues or a shorter --max-wait cut waiting, at the price of more refusals; if "
                + "even unqueued calls are too slow, the downstream itself is.",
                targets.maxUnserved() == null ? "The settings have" : "The settings that serve enough calls have",
                Durations.humanMillis(fastest.result().endToEnd().p99()), fastest.setting().limit(),
                fastest.setting().queue(), Durations.humanMillis(targets.p99().toNanos() / 1e6)));
        return why.toString();
    }
}
