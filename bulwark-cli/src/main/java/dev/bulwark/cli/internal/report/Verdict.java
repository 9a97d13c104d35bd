package dev.bulwark.cli.internal.report;

import dev.bulwark.cli.internal.sim.BulkheadSettings;
import dev.bulwark.cli.internal.sim.LimitTrace;
import dev.bulwark.cli.internal.sim.CallOutcome;
import dev.bulwark.cli.internal.sim.Durations;
import dev.bulwark.cli.internal.sim.OutcomeCounts;
import dev.bulwark.cli.internal.sim.SimulationResult;
import dev.bulwark.cli.internal.sim.SimulationSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The run's result in a word and two or three plain sentences: was the downstream healthy, who paid for it, and
 * what to try next. Shared by the text, JSON and HTML reports.
 */
public final class Verdict {

    /** Completed calls taking this much longer than their unloaded service time mean an overloaded downstream. */
    private static final double HEALTHY_SLOWDOWN = 1.2;

    private Verdict() {
    }

    /**
     * Returns whether the downstream stayed healthy: completed calls were not much slower than on an unloaded
     * downstream, and it kept up with what entered it (Little's law holds).
     *
     * @param result the run
     * @return {@code true} when healthy
     */
    public static boolean healthy(SimulationResult result) {
        return !slowed(result) && result.littlesLaw().holds();
    }

    private static boolean slowed(SimulationResult result) {
        double slowdown = result.slowdown();
        return !Double.isNaN(slowdown) && slowdown > HEALTHY_SLOWDOWN;
    }

    /**
     * Returns the verdict in a word.
     *
     * @param result the run
     * @return {@code healthy}, {@code unfinished} (completed calls were not slow, but calls were still queued or in
     *     flight when the drain ended, so the run is too short to judge), {@code collapsed} (no bulkhead),
     *     {@code overloaded} (a limit above the downstream's capacity) or {@code slow}
     */
    public static String headline(SimulationResult result) {
        if (healthy(result)) {
            return "healthy";
        }
        if (!slowed(result) && result.counts().count(CallOutcome.CANCELLED) > 0) {
            // Only the cut-off breaks Little's law here: L counts the calls the drain cut off, X W does not.
            return "unfinished";
        }
        Optional<BulkheadSettings> bulkhead = result.settings().bulkhead();
        if (bulkhead.isEmpty()) {
            return "collapsed";
        }
        return effectiveLimit(result) > result.settings().downstreamCapacity() ? "overloaded" : "slow";
    }

    /**
     * Describes the bulkhead's limit: the configured one, or for an adaptive limit the range it took while calls
     * arrived (its start, {@code --limit}, is only where the search began).
     *
     * @param result a run with a bulkhead
     * @return for example {@code limit 32} or {@code adaptive limit 4 to 46, near 31 at the end}
     */
    public static String describeLimit(SimulationResult result) {
        BulkheadSettings bulkhead = result.settings().bulkhead().orElseThrow();
        Optional<LimitTrace> trace = LimitTrace.of(result.timeline(), result.settings().duration().toNanos() / 1e9);
        if (trace.isEmpty()) {
            return "limit " + (bulkhead.adaptive() == null ? bulkhead.limit()
                    : result.timeline().get(result.timeline().size() - 1).limit());
        }
        return String.format(Locale.ROOT, "adaptive limit %d to %d, near %d at the end", trace.get().lowest(),
                trace.get().highest(), Math.round(trace.get().finalMean()));
    }

    /** The limit the run ended with: the configured one, or where an adaptive limit settled. */
    static int effectiveLimit(SimulationResult result) {
        BulkheadSettings bulkhead = result.settings().bulkhead().orElseThrow();
        return LimitTrace.of(result.timeline(), result.settings().duration().toNanos() / 1e9)
                .map(trace -> (int) Math.round(trace.finalMean())).orElse(bulkhead.limit());
    }

    /**
     * Writes the verdict, wrapped at 100 columns.
     *
     * @param result the run
     * @return the text, starting with {@code Verdict:}
     */
    public static String of(SimulationResult result) {
        return wrap("Verdict: " + sentence(result) + caution(result).map(text -> " " + text).orElse(""), 100);
    }

    /**
     * Writes the verdict on one line: the headline, then the explanation.
     *
     * @param result the run
     * @return for example {@code healthy. The bulkhead kept ...}
     */
    public static String sentence(SimulationResult result) {
        return headline(result) + ". " + explanation(result);
    }

    /**
     * Warns when the machine was too busy for the simulator to keep its schedule.
     *
     * @param result the run
     * @return a sentence, or empty when the run was punctual
     */
    public static Optional<String> caution(SimulationResult result) {
        if (result.schedulingLag().punctual()) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "Caution: the machine was busy and the simulator ran up to %s "
                + "late, which adds to latencies and bunches arrivals; run again on a quieter machine for precise "
                + "figures.", Durations.humanMillis(result.schedulingLag().worst())));
    }

    /**
     * Explains the headline with the run's numbers.
     *
     * @param result the run
     * @return two or three sentences
     */
    public static String explanation(SimulationResult result) {
        SimulationSettings settings = result.settings();
        Optional<BulkheadSettings> bulkhead = settings.bulkhead();
        OutcomeCounts counts = result.counts();
        int capacity = settings.downstreamCapacity();
        String served = Numbers.percent(counts.share(CallOutcome.COMPLETED));
        String p99 = Durations.humanMillis(result.endToEnd().p99());
        String slowdown = Numbers.significant(result.slowdown());
        switch (headline(result)) {
            case "healthy":
                if (bulkhead.isEmpty()) {
                    return String.format(Locale.ROOT, "The downstream kept up without a bulkhead (peak %s in "
                            + "flight, capacity %d): %s of calls were served, p99 %s.",
                            Numbers.count(result.peakInFlight()), capacity, served, p99);
                }
                return healthyWithBulkhead(result, settings, counts, capacity, served, p99);
            case "unfinished":
                return String.format(Locale.ROOT, "%s of calls were still queued or in flight when the drain ended "
                        + "(--drain %s), so the run stopped before it could settle: Little's law does not hold (L = "
                        + "%s in flight, X W = %s), although completed calls took %sx their unloaded time (p99 %s). "
                        + "Run it longer, or with a longer --drain, to judge it.",
                        Numbers.percent(counts.share(CallOutcome.CANCELLED)),
                        Durations.format(settings.drain()), Numbers.significant(result.littlesLaw().meanInFlight()),
                        Numbers.significant(result.littlesLaw().product()), slowdown, p99);
            case "collapsed":
                return String.format(Locale.ROOT, "Without a bulkhead, up to %s calls were in flight (%sx the "
                        + "downstream's capacity of %d), completed calls took %sx their unloaded time (p99 %s), "
                        + "and only %s of calls were served%s. Run it again without --no-bulkhead to compare.",
                        Numbers.count(result.peakInFlight()),
                        Numbers.significant((double) result.peakInFlight() / capacity), capacity, slowdown, p99,
                        served, unserved(counts));
            case "overloaded":
                return String.format(Locale.ROOT, "The limit (%s) lets more calls through than the downstream "
                        + "serves at full speed (%d): completed calls took %sx their unloaded time (p99 %s). A limit "
                        + "near %d would keep it healthy.", limitInWords(result), capacity, slowdown, p99,
                        capacity);
            default:
                return String.format(Locale.ROOT, "Completed calls took %sx their unloaded time (p99 %s) although "
                        + "the limit (%s) is within the downstream's capacity (%d): look at the queue wait and the "
                        + "time series.", slowdown, p99, limitInWords(result), capacity);
        }
    }

    /** A fixed limit as its number; an adaptive one as its range and where it ended. */
    private static String limitInWords(SimulationResult result) {
        String described = describeLimit(result);
        return described.startsWith("limit ") ? described.substring("limit ".length()) : described;
    }

    private static String healthyWithBulkhead(SimulationResult result, SimulationSettings settings,
                                              OutcomeCounts counts, int capacity, String served, String p99) {
        String text;
        if (result.peakInFlight() <= capacity) {
            text = String.format(Locale.ROOT, "The bulkhead kept the downstream within what it serves at full "
                    + "speed (peak %s in flight, capacity %d): %s of calls were served with p99 %s",
                    Numbers.count(result.peakInFlight()), capacity, served, p99);
        } else {
            // Healthy on the whole although the peak passed the capacity (an adaptive limit probing above it, or
            // calls admitted before a cut took effect): say both, not "kept within" next to a higher peak.
            text = String.format(Locale.ROOT, "The bulkhead kept the downstream healthy (completed calls took %sx "
                    + "their unloaded time) although up to %s calls were in flight at a moment, above its capacity "
                    + "of %d (%s): %s of calls were served with p99 %s", Numbers.significant(result.slowdown()),
                    Numbers.count(result.peakInFlight()), capacity, describeLimit(result), served, p99);
        }
        String rest = notRefused(counts);
        if (counts.rejected() == 0) {
            return text + ", and none was refused" + rest + ".";
        }
        text += String.format(Locale.ROOT, ", and %s were refused at once or after a short wait instead of "
                + "overloading it%s.", Numbers.percent((double) counts.rejected() / counts.arrivals()), rest);
        Optional<Double> offered = settings.offeredConcurrency();
        if (offered.isPresent() && offered.get() > capacity) {
            text += String.format(Locale.ROOT, " The offered load (%s calls' worth) exceeds the capacity (%d), so "
                    + "refusing about %s is the price of staying healthy.", Numbers.significant(offered.get()),
                    capacity, Numbers.percent(1 - capacity / offered.get()));
        }
        return text;
    }

    /**
     * The unserved calls that were not refused (timed out, still unfinished at the end, failed), largest share first,
     * as {@code "; 10.1 % timed out"}; empty when every unserved call was refused. A timeout is not a refusal: the
     * call was admitted and ran past its deadline.
     */
    private static String notRefused(OutcomeCounts counts) {
        return shares(counts, "; ", CallOutcome.TIMED_OUT, CallOutcome.CANCELLED, CallOutcome.FAILED);
    }

    /** Where the unserved calls went, largest share first: {@code : 97.9 % were still unfinished at the end}. */
    private static String unserved(OutcomeCounts counts) {
        return shares(counts, ": ", CallOutcome.CANCELLED, CallOutcome.TIMED_OUT, CallOutcome.REJECTED_QUEUE_FULL,
                CallOutcome.REJECTED_WAIT_TIMEOUT, CallOutcome.REJECTED_EVICTED, CallOutcome.FAILED);
    }

    /** The shares of {@code outcomes} that occurred, largest first (ties in the given order), after {@code lead}. */
    private static String shares(OutcomeCounts counts, String lead, CallOutcome... outcomes) {
        List<CallOutcome> sorted = new ArrayList<>(List.of(outcomes));
        sorted.sort(Comparator.comparingLong(counts::count).reversed());
        StringBuilder text = new StringBuilder();
        for (CallOutcome outcome : sorted) {
            if (counts.count(outcome) == 0) {
                continue;
            }
            text.append(text.length() == 0 ? lead : ", ").append(Numbers.percent(counts.share(outcome))).append(' ')
                    .append(outcome == CallOutcome.CANCELLED ? "were still unfinished when the run ended"
                            : outcome == CallOutcome.TIMED_OUT ? "timed out" : outcome.label());
        }
        return text.toString();
    }

    static String wrap(String text, int width) {
        StringBuilder wrapped = new StringBuilder();
        int lineLength = 0;
        for (String word : text.split(" ")) {
            if (lineLength > 0 && lineLength + 1 + word.length() > width) {
                wrapped.append('\n');
                lineLength = 0;
            } else if (lineLength > 0) {
                wrapped.append(' ');
                lineLength++;
            }
            wrapped.append(word);
            lineLength += word.length();
        }
        return wrapped.toString();
    }
}
