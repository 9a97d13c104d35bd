package dev.bulwark.cli.internal.report;

import dev.bulwark.cli.internal.sim.ArrivalModel;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.LoadSchedule;
import dev.bulwark.cli.internal.sim.Sample;
import dev.bulwark.cli.internal.sim.SimulationResult;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The text report's table of a {@code --schedule} run: a row per period of the schedule (between two phase ends of
 * any lane) with the rate, the calls offered and refused, and what the limit did, including how long after the
 * period began it first stood at the downstream's capacity or above (for the recovery after a surge). Read from the
 * run's samples, one every 100 ms.
 */
final class ScheduleReport {

    private ScheduleReport() {
    }

    /**
     * Writes the table followed by a blank line; nothing for a run without a schedule.
     *
     * @param result the run
     * @param out where to write
     */
    static void text(SimulationResult result, PrintWriter out) {
        if (!(result.settings().arrivals() instanceof ArrivalModel.OpenLoop)) {
            return;
        }
        LoadSchedule schedule = ((ArrivalModel.OpenLoop) result.settings().arrivals()).schedule();
        if (schedule == null) {
            return;
        }
        int capacity = result.settings().downstreamCapacity();
        boolean limited = result.settings().bulkhead().isPresent();
        out.printf(Locale.ROOT, "%-17s %12s %10s %10s %9s   %s%n", "By period (s)", "rate at end", "offered",
                "refused", "share", limited ? "limit min..max (mean); at capacity " + capacity + " or above after"
                        : "");
        long from = 0;
        for (Duration end : schedule.phaseEnds()) {
            long to = end.toNanos();
            List<Sample> inside = samples(result.timeline(), from, to);
            Sample before = last(result.timeline(), from);
            Sample after = last(result.timeline(), to);
            long offered = after.arrivals() - before.arrivals();
            long refused = after.rejected() - before.rejected();
            String limit = "";
            if (limited && !inside.isEmpty()) {
                int min = inside.stream().mapToInt(Sample::limit).min().orElseThrow();
                int max = inside.stream().mapToInt(Sample::limit).max().orElseThrow();
                double mean = inside.stream().mapToInt(Sample::limit).average().orElseThrow();
                String reached = "never";
                for (Sample sample : inside) {
                    if (sample.limit() >= capacity) {
                        reached = Numbers.significant((sample.elapsedNanos() - from) / 1e9) + " s";
                        break;
                    }
                }
                limit = String.format(Locale.ROOT, "%d..%d (%s); %s", min, max, Numbers.significant(mean), reached);
            }
            out.printf(Locale.ROOT, "  %-15s %12s %10s %10s %9s   %s%n",
                    Durations.format(Duration.ofNanos(from)) + "-" + Durations.format(end),
                    rate(schedule.rateAt(Duration.ofNanos(to - 1))), Numbers.count(offered), Numbers.count(refused),
                    Numbers.percent(offered == 0 ? Double.NaN : (double) refused / offered), limit);
            from = to;
        }
        out.println("  (from the samples every " + Durations.format(result.settings().sampleInterval())
                + "; refused: by the bulkhead; the limit as sampled within the period)");
        out.println();
    }

    private static String rate(double perSecond) {
        return Numbers.whole(perSecond) + "/s";
    }

    /** The samples taken after {@code from} and up to {@code to}. */
    private static List<Sample> samples(List<Sample> timeline, long from, long to) {
        List<Sample> inside = new ArrayList<>();
        for (Sample sample : timeline) {
            if (sample.elapsedNanos() > from && sample.elapsedNanos() <= to) {
                inside.add(sample);
            }
        }
        return inside;
    }

    /** The last sample taken at or before {@code at}, or an empty one before the first. */
    private static Sample last(List<Sample> timeline, long at) {
        Sample found = new Sample(0, 0, 0, 0, 0, 0, 0, 0, 0);
        for (Sample sample : timeline) {
            if (sample.elapsedNanos() <= at) {
                found = sample;
            }
        }
        return found;
    }
}
