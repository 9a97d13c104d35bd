package dev.bulwark.micrometer.internal;

import io.micrometer.core.instrument.Tags;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * One histogram series of a bound bulkhead (its executions, or its waits that ended one way), read when scraped as
 * cumulative bucket counts whose last ({@code +Inf}) bucket is the exact count of the meter it sits beside.
 *
 * <h2>Design notes</h2>
 *
 * <p>The count is exact and comes from the binding's own counters; the buckets come from the timed values. Two
 * shapes:
 * <ul>
 *   <li><b>Waits</b> ({@link #withUntimedZeros}): every non-zero wait is timed and counted in its bucket with weight
 *       1, and every call that was not timed waited 0, so a bucket holds the untimed calls ({@code count - timed})
 *       plus the timed values up to its bound: exact.</li>
 *   <li><b>Executions</b> ({@link #scaled}): only a sample is timed, each with the weight of the calls it stands for,
 *       so a bucket holds the exact count times the weighted share of the sample up to its bound: the sample's
 *       distribution carried to the exact count (exact when every call is timed).</li>
 * </ul>
 * Reads race with recordings (a call may be counted and not yet timed), and a scaled share moves as the sample
 * grows, so the raw estimate could step back. What is reported is therefore clamped:
 * {@code reported[i] = min(count, max(previous[i], estimate[i]))}.
 *
 * <p><b>Invariant</b> (what Prometheus needs of a histogram): every bucket is non-decreasing from scrape to scrape
 * (the max with the previous report, and a count that never decreases), non-decreasing in its bound (the estimate
 * and the previous report both are, and so are their max and its min with one number), and no bucket exceeds the
 * count, which is the {@code +Inf} bucket and the {@code _count}. Reads are serialised by a lock (scrapes are rare
 * and run no user code); recording never takes it.
 */
final class HistogramSeries {

    private final String twinMeterName;
    private final Tags tags;
    private final LongSupplier count;
    /** {@code null} for a scaled series. */
    private final LongSupplier timedCount;
    private final DoubleSupplier sumNanos;
    private final BucketCounts buckets;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}: the cumulative counts last reported, one per finite bound. */
    private final long[] reported;

    private HistogramSeries(String twinMeterName, Tags tags, LongSupplier count, LongSupplier timedCount,
                            DoubleSupplier sumNanos, BucketCounts buckets) {
        this.twinMeterName = twinMeterName;
        this.tags = tags;
        this.count = count;
        this.timedCount = timedCount;
        this.sumNanos = sumNanos;
        this.buckets = buckets;
        this.reported = new long[buckets.slots() - 1];
    }

    /**
     * A series of waits: the calls not timed waited 0.
     *
     * @param twinMeterName the Micrometer meter whose count and tags this series shares
     * @param timedCount how many of the counted calls were timed (and recorded in {@code buckets})
     */
    static HistogramSeries withUntimedZeros(String twinMeterName, Tags tags, LongSupplier count,
                                            LongSupplier timedCount, DoubleSupplier sumNanos, BucketCounts buckets) {
        return new HistogramSeries(twinMeterName, tags, count, timedCount, sumNanos, buckets);
    }

    /**
     * A series of sampled durations, carried to the exact count.
     *
     * @param twinMeterName the Micrometer meter whose count and tags this series shares
     */
    static HistogramSeries scaled(String twinMeterName, Tags tags, LongSupplier count, DoubleSupplier sumNanos,
                                  BucketCounts buckets) {
        return new HistogramSeries(twinMeterName, tags, count, null, sumNanos, buckets);
    }

    String twinMeterName() {
        return twinMeterName;
    }

    Tags tags() {
        return tags;
    }

    /** The upper bound of the {@code i}-th finite bucket in seconds. */
    double upperBoundSeconds(int i) {
        return buckets.upperBoundSeconds(i);
    }

    /** The sum of the values in nanoseconds (estimated as the twin meter's total is). */
    double sumNanos() {
        return sumNanos.getAsDouble();
    }

    /**
     * Returns the cumulative bucket counts: one per finite bound, then the count (the {@code +Inf} bucket).
     * Satisfies the invariant above.
     *
     * @return a new array
     */
    long[] cumulativeCounts() {
        lock.lock();
        try {
            long total = count.getAsLong();
            long zeros = 0L;
            if (timedCount != null) {
                zeros = Math.max(0L, total - timedCount.getAsLong());
            }
            long weightTotal = 0L;
            long[] cumulative = new long[reported.length + 1];
            for (int slot = 0; slot < buckets.slots(); slot++) {
                weightTotal += buckets.count(slot);
                if (slot < reported.length) {
                    cumulative[slot] = weightTotal;
                }
            }
            for (int i = 0; i < reported.length; i++) {
                long estimate;
                if (timedCount != null) {
                    estimate = zeros + cumulative[i];
                } else {
                    estimate = weightTotal == 0 ? 0L : (long) ((double) total * cumulative[i] / weightTotal);
                }
                reported[i] = Math.min(total, Math.max(reported[i], estimate));
                cumulative[i] = reported[i];
            }
            cumulative[reported.length] = total;
            return cumulative;
        } finally {
            lock.unlock();
        }
    }
}
