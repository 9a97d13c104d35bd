package dev.bulwark.cli.internal.sim;

import java.util.List;
import java.util.Optional;

/**
 * How an adaptive bulkhead's limit moved during a run: where it started, the band it kept over the last third of
 * the arrivals (at least the last second), and from when on it stayed in that band. Immutable.
 *
 * @param start the limit when the run started
 * @param end the limit when arrivals stopped
 * @param finalMin the lowest limit over the final window
 * @param finalMax the highest limit over the final window
 * @param finalMean the mean of the samples in the final window
 * @param settledAfterSeconds the time from which the limit never left {@code [finalMin, finalMax]} until arrivals
 *     stopped
 * @param finalWindowSeconds how long the final window was
 * @param lowest the lowest limit while calls arrived
 * @param highest the highest limit while calls arrived
 */
public record LimitTrace(int start, int end, int finalMin, int finalMax, double finalMean,
                         double settledAfterSeconds, double finalWindowSeconds, int lowest, int highest) {

    /**
     * Reads the trace from a run's samples, if the limit ever moved.
     *
     * @param timeline the samples
     * @param arrivalsSeconds when arrivals stopped
     * @return the trace, or empty when the limit never changed (a fixed bulkhead, or none)
     */
    public static Optional<LimitTrace> of(List<Sample> timeline, double arrivalsSeconds) {
        List<Sample> arriving = timeline.stream().filter(s -> s.elapsedSeconds() <= arrivalsSeconds).toList();
        if (arriving.isEmpty() || arriving.stream().mapToInt(Sample::limit).distinct().count() <= 1
                || arriving.get(0).limit() == 0) {
            return Optional.empty();
        }
        double window = Math.max(1.0, arrivalsSeconds / 3.0);
        double windowStart = arrivalsSeconds - window;
        List<Sample> last = arriving.stream().filter(s -> s.elapsedSeconds() >= windowStart).toList();
        if (last.isEmpty()) {
            last = List.of(arriving.get(arriving.size() - 1));
        }
        int min = last.stream().mapToInt(Sample::limit).min().orElseThrow();
        int max = last.stream().mapToInt(Sample::limit).max().orElseThrow();
        double mean = last.stream().mapToInt(Sample::limit).average().orElseThrow();
        // From the first sample after the last one outside the band: the limit is in the band from then on.
        double settled = 0.0;
        for (int i = 0; i < arriving.size(); i++) {
            Sample sample = arriving.get(i);
            if (sample.limit() < min || sample.limit() > max) {
                settled = arriving.get(Math.min(i + 1, arriving.size() - 1)).elapsedSeconds();
            }
        }
        return Optional.of(new LimitTrace(arriving.get(0).limit(), arriving.get(arriving.size() - 1).limit(), min,
                max, mean, settled, window, arriving.stream().mapToInt(Sample::limit).min().orElseThrow(),
                arriving.stream().mapToInt(Sample::limit).max().orElseThrow()));
    }
}
