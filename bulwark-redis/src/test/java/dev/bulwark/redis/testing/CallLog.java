package dev.bulwark.redis.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The calls a fleet of {@link FleetWorker}s logged, and what they show independently of the bulkhead: how many
 * operations really ran at once (a sweep over their start and end times), how long the fleet spent above the
 * limit, when it admitted again after an outage, and how far grant order strayed from arrival order.
 */
public final class CallLog {

    /** One call; {@code started} and {@code ended} are -1 when it was refused. Times in epoch microseconds. */
    public record Call(int worker, int thread, long seq, long asked, long started, long ended, String outcome) {
        public boolean ran() {
            return "OK".equals(outcome);
        }
    }

    /** The most operations running at once, and the time (µs) spent, and the span, above the limit. */
    public record Excess(int maxInFlight, long microsAboveLimit, long firstAbove, long lastAbove, int episodes) {
        public int overLimit(int limit) {
            return Math.max(0, maxInFlight - limit);
        }
    }

    private final List<Call> calls;

    private CallLog(List<Call> calls) {
        this.calls = calls;
    }

    /** Reads the logs, worker {@code i} from {@code files.get(i)}. */
    public static CallLog read(List<Path> files) throws IOException {
        List<Call> calls = new ArrayList<>();
        for (int worker = 0; worker < files.size(); worker++) {
            for (String line : Files.readAllLines(files.get(worker))) {
                String[] f = line.split(" ");
                calls.add(new Call(worker, Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                        Long.parseLong(f[3]), Long.parseLong(f[4]), f[5]));
            }
        }
        return new CallLog(calls);
    }

    public List<Call> calls() {
        return calls;
    }

    public long count(String outcome) {
        return calls.stream().filter(c -> c.outcome().equals(outcome)).count();
    }

    /** Whether every (worker, thread, seq) appears once and every thread's sequence has no gap. */
    public boolean eachCallOnceWithoutGaps() {
        Set<String> seen = new HashSet<>();
        java.util.Map<String, Long> mostPerThread = new java.util.HashMap<>();
        for (Call call : calls) {
            if (!seen.add(call.worker() + "/" + call.thread() + "/" + call.seq())) {
                return false;
            }
            mostPerThread.merge(call.worker() + "/" + call.thread(), call.seq(), Math::max);
        }
        long expected = mostPerThread.values().stream().mapToLong(most -> most + 1).sum();
        return expected == calls.size();
    }

    /** Sweeps the run intervals: an end and a start at the same microsecond count as not overlapping. */
    public Excess excess(int limit) {
        List<long[]> events = new ArrayList<>();
        for (Call call : calls) {
            if (call.ran()) {
                events.add(new long[] {call.started(), +1});
                events.add(new long[] {call.ended(), -1});
            }
        }
        events.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int running = 0;
        int most = 0;
        long above = 0;
        long aboveSince = -1;
        long first = -1;
        long last = -1;
        int episodes = 0;
        for (long[] event : events) {
            running += (int) event[1];
            most = Math.max(most, running);
            if (running > limit && aboveSince < 0) {
                aboveSince = event[0];
                episodes++;
                if (first < 0) {
                    first = event[0];
                }
            } else if (running <= limit && aboveSince >= 0) {
                above += event[0] - aboveSince;
                last = event[0];
                aboveSince = -1;
            }
        }
        return new Excess(most, above, first, last, episodes);
    }

    /** The first start of a call asked for after {@code micros}, or -1 when none ran. */
    public long firstStartAskedAfter(long micros) {
        return calls.stream().filter(c -> c.ran() && c.asked() > micros).mapToLong(Call::started).min()
                .orElse(-1);
    }

    /**
     * Operation-microseconds run between {@code from} and {@code to} (epoch µs): the integral of the in-flight count
     * over that window, so that dividing it by {@code limit × (to - from)} gives the fleet's utilization.
     */
    public long busyMicros(long from, long to) {
        long busy = 0;
        for (Call call : calls) {
            if (call.ran()) {
                busy += Math.max(0, Math.min(to, call.ended()) - Math.max(from, call.started()));
            }
        }
        return busy;
    }

    /** The longest time without a call starting, and when it ended (epoch µs). */
    public record Pause(long micros, long endedAt) {
    }

    /**
     * The longest time between {@code from} and {@code to} (epoch µs) during which no call of {@code worker} (or of
     * any worker, when negative) started; from {@code from} to the first start counts, and so does the last start
     * to {@code to}.
     */
    public Pause longestPause(long from, long to, int worker) {
        long[] starts = calls.stream().filter(c -> c.ran() && (worker < 0 || c.worker() == worker))
                .mapToLong(Call::started).filter(started -> started >= from && started <= to).sorted().toArray();
        long previous = from;
        Pause longest = new Pause(0, from);
        for (long start : starts) {
            if (start - previous > longest.micros()) {
                longest = new Pause(start - previous, start);
            }
            previous = start;
        }
        return to - previous > longest.micros() ? new Pause(to - previous, to) : longest;
    }

    /** How many workers logged calls. */
    public int workers() {
        return calls.stream().mapToInt(Call::worker).max().orElse(-1) + 1;
    }

    /** The last start of a call, or -1. */
    public long lastStart() {
        return calls.stream().filter(Call::ran).mapToLong(Call::started).max().orElse(-1);
    }

    /**
     * How far grants strayed from arrival order: for each grant taken in order of start, how much earlier it
     * asked than the latest-asking call granted before it (0 when in order). Returns those lags sorted ascending.
     */
    public long[] fifoLags() {
        List<Call> granted = new ArrayList<>(calls.stream().filter(Call::ran).toList());
        granted.sort(Comparator.comparingLong(Call::started));
        long[] lags = new long[granted.size()];
        long latestAsked = Long.MIN_VALUE;
        for (int i = 0; i < lags.length; i++) {
            Call call = granted.get(i);
            lags[i] = i == 0 ? 0 : Math.max(0, latestAsked - call.asked());
            latestAsked = Math.max(latestAsked, call.asked());
        }
        Arrays.sort(lags);
        return lags;
    }

    /** The {@code q} quantile (0..1) of sorted values, or 0 when there are none. */
    public static long quantile(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }
}
