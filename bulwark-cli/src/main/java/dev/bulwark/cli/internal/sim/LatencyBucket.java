package dev.bulwark.cli.internal.sim;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * One bar of a latency distribution on a logarithmic axis: the latencies from {@code fromMillis} (inclusive) to
 * {@code toMillis} (exclusive). Five bars per factor of ten, so that equal areas mean equal counts. Immutable.
 *
 * @param fromMillis lower edge
 * @param toMillis upper edge
 * @param count how many latencies fall in it
 */
public record LatencyBucket(double fromMillis, double toMillis, long count) {

    private static final int BUCKETS_PER_DECADE = 5;

    /**
     * Splits a histogram of microseconds into logarithmic buckets, from the first non-empty one to the last.
     * Latencies under 1 µs go to the first bucket, [1 µs, 1.58 µs).
     *
     * @param micros the histogram
     * @return the buckets, empty when the histogram is
     */
    public static List<LatencyBucket> ofMicros(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return List.of();
        }
        int maxIndex = index(micros.getMaxValue());
        long[] counts = new long[maxIndex + 1];
        for (HistogramIterationValue value : micros.recordedValues()) {
            int index = Math.min(maxIndex, index(value.getValueIteratedTo()));
            counts[index] += value.getCountAtValueIteratedTo();
        }
        int first = 0;
        while (counts[first] == 0) {
            first++;
        }
        List<LatencyBucket> buckets = new ArrayList<>();
        for (int i = first; i <= maxIndex; i++) {
            buckets.add(new LatencyBucket(edgeMicros(i) / 1000.0, edgeMicros(i + 1) / 1000.0, counts[i]));
        }
        return List.copyOf(buckets);
    }

    private static int index(long micros) {
        if (micros <= 1) {
            return 0;
        }
        return (int) Math.floor(BUCKETS_PER_DECADE * Math.log10(micros) + 1e-9);
    }

    private static double edgeMicros(int index) {
        return Math.pow(10, (double) index / BUCKETS_PER_DECADE);
    }
}
