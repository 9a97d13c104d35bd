package dev.bulwark.lab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of one run (one guard) of the overload experiment, from its samples. The surge's figures count the
 * requests due during the surge, whenever they ended.
 *
 * @param guard the guard's label
 * @param limit the limit configured (the starting and highest limit for selfTuning; 0 for none)
 * @param finalLimit Bulwark's limit when the run ended (-1 when the guard is not Bulwark's)
 * @param surgeOfferedPerSecond requests due per second during the surge
 * @param surgeGoodputPerSecond requests due during the surge that succeeded within the client's timeout, per second
 * @param surgeP50Millis median latency of the surge's requests, all outcomes (a client timeout counts as its time)
 * @param surgeP99Millis 99th percentile of the same
 * @param surgeOkP99Millis 99th percentile of the surge's successful requests only
 * @param surgeOutcomes how the surge's requests ended
 * @param poolTimeouts HikariCP connection timeouts during the whole run, counted by the service
 * @param surgeGeneratorLagP99Millis the 99th percentile of the surge's {@link Sample#lagNanos()}: above a few
 *     milliseconds the load generator, which shares the machine, was itself late, and the run's figures are
 *     suspect
 * @param recoverySeconds from the surge's end to the first of two consecutive one-second windows of the recovery
 *     stage that are healthy (see {@link #healthy}); -1 when none was
 * @param stageGoodputPerSecond per stage of the schedule, in order: its requests (by due time) that succeeded within
 *     the client's timeout, per second of the stage
 * @param stageOkShare per stage: the share of its requests that succeeded (0 to 1)
 * @param stageP99Millis per stage: the 99th percentile latency of its requests, every outcome (a client timeout
 *     counts as its time)
 * @param windows per one-second window of due time: successes and the p90 latency of all outcomes
 */
record RunResult(String guard, int limit, int finalLimit, double surgeOfferedPerSecond,
        double surgeGoodputPerSecond, double surgeP50Millis, double surgeP99Millis, double surgeOkP99Millis,
        Map<Outcome, Integer> surgeOutcomes, long poolTimeouts, double surgeGeneratorLagP99Millis,
        double recoverySeconds, List<Double> stageGoodputPerSecond, List<Double> stageOkShare,
        List<Double> stageP99Millis, List<Window> windows) {

    /**
     * One second of the run, by due time.
     *
     * @param second seconds from the run's start
     * @param requests requests due in it
     * @param ok those that succeeded
     * @param p90Millis the 90th percentile of their latency, all outcomes
     */
    record Window(int second, int requests, int ok, double p90Millis) {
    }

    /**
     * Computes a run's figures.
     *
     * @param guard the guard's label
     * @param limit the configured limit
     * @param finalLimit Bulwark's limit at the end, or -1
     * @param samples every request of the run
     * @param stages the run's schedule: the first stage is the warm one, the second the surge (or the stress)
     * @param poolTimeouts HikariCP's timeouts during the run
     * @return the figures
     */
    static RunResult of(String guard, int limit, int finalLimit, List<Sample> samples, List<Stage> stages,
            long poolTimeouts) {
        long warmNanos = stages.get(0).length().toNanos();
        long surgeNanos = stages.get(1).length().toNanos();
        List<Double> stageGoodput = new ArrayList<>();
        List<Double> stageOk = new ArrayList<>();
        List<Double> stageP99 = new ArrayList<>();
        long stageStart = 0;
        for (Stage stage : stages) {
            long from = stageStart;
            long to = from + stage.length().toNanos();
            List<Sample> in = samples.stream().filter(s -> s.sentNanos() >= from && s.sentNanos() < to).toList();
            long okCount = in.stream().filter(s -> s.outcome() == Outcome.OK).count();
            stageGoodput.add(Math.round(okCount / (stage.length().toNanos() / 1e9) * 10) / 10.0);
            stageOk.add(in.isEmpty() ? 0 : Math.round(1000.0 * okCount / in.size()) / 1000.0);
            stageP99.add(millis(percentile(in.stream().mapToLong(Sample::latencyNanos).sorted().toArray(), 0.99)));
            stageStart = to;
        }
        long surgeEnd = warmNanos + surgeNanos;
        List<Sample> surge = samples.stream().filter(s -> s.sentNanos() >= warmNanos && s.sentNanos() < surgeEnd)
                .toList();
        Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, (int) surge.stream().filter(s -> s.outcome() == o).count());
        }
        double seconds = surgeNanos / 1e9;
        long[] all = surge.stream().mapToLong(Sample::latencyNanos).sorted().toArray();
        long[] ok = surge.stream().filter(s -> s.outcome() == Outcome.OK).mapToLong(Sample::latencyNanos).sorted()
                .toArray();

        List<Window> windows = new ArrayList<>();
        int last = (int) (samples.stream().mapToLong(Sample::sentNanos).max().orElse(0) / 1_000_000_000L);
        for (int second = 0; second <= last; second++) {
            long from = second * 1_000_000_000L;
            long to = from + 1_000_000_000L;
            List<Sample> in = samples.stream().filter(s -> s.sentNanos() >= from && s.sentNanos() < to).toList();
            long[] lat = in.stream().mapToLong(Sample::latencyNanos).sorted().toArray();
            windows.add(new Window(second, in.size(), (int) in.stream().filter(s -> s.outcome() == Outcome.OK)
                    .count(), millis(percentile(lat, 0.90))));
        }
        double baseline = baselineP90(windows, warmNanos);
        double recovery = -1;
        int firstRecoveryWindow = (int) Math.ceil(surgeEnd / 1e9);
        for (int i = firstRecoveryWindow; i + 1 < windows.size(); i++) {
            if (healthy(windows.get(i), baseline) && healthy(windows.get(i + 1), baseline)) {
                recovery = Math.max(0, windows.get(i).second() - surgeEnd / 1e9);
                break;
            }
        }
        return new RunResult(guard, limit, finalLimit, surge.size() / seconds, outcomes.get(Outcome.OK) / seconds,
                millis(percentile(all, 0.50)), millis(percentile(all, 0.99)), millis(percentile(ok, 0.99)),
                outcomes, poolTimeouts,
                millis(percentile(surge.stream().mapToLong(Sample::lagNanos).sorted().toArray(), 0.99)), recovery,
                stageGoodput, stageOk, stageP99, windows);
    }

    /**
     * Whether a window of the recovery stage is healthy: at least 98% of its requests succeeded and its p90 latency
     * is at most twice the warm stage's (or the warm stage's plus 20 ms, whichever is larger).
     *
     * @param window the window
     * @param baselineP90Millis the warm stage's p90
     * @return whether it is healthy
     */
    static boolean healthy(Window window, double baselineP90Millis) {
        return window.requests() > 0 && window.ok() >= 0.98 * window.requests()
                && window.p90Millis() <= Math.max(2 * baselineP90Millis, baselineP90Millis + 20);
    }

    private static double baselineP90(List<Window> windows, long warmNanos) {
        // The warm stage's windows after its first (which carries the switch-over of guards).
        double[] p90s = windows.stream().filter(w -> w.second() >= 1 && (w.second() + 1) * 1e9 <= warmNanos)
                .mapToDouble(Window::p90Millis).sorted().toArray();
        return p90s.length == 0 ? 0 : p90s[p90s.length / 2];
    }

    static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    static double millis(long nanos) {
        return Math.round(nanos / 1e5) / 10.0;
    }

    @Override
    public String toString() {
        return guard + " " + limit + " " + Arrays.asList(surgeGoodputPerSecond, surgeP50Millis, surgeP99Millis);
    }
}
