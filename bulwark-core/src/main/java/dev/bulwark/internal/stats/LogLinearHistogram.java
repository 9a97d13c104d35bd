package dev.bulwark.internal.stats;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A lock-free histogram of non-negative {@code long} values (nanoseconds) with log-linear buckets, as HdrHistogram
 * lays them out: values below 32 get a bucket each; above, every power of two is split into 32 equal sub-buckets.
 * So a bucket is never wider than 1/32 of its lower bound, and the bucket midpoint this class reports for a
 * percentile is within 1/64 (1.6 %) of any value in the bucket. 1,888 buckets cover the whole {@code long} range
 * (15 KB), with no configuration and no resizing.
 *
 * <h2>Design notes</h2>
 *
 * <p>Recording is two or three atomic operations and no allocation: raise {@link #max} by CAS if needed, then
 * increment the bucket. Readers take no lock and see a possibly mid-update picture.
 *
 * <p><b>Invariant</b> (what a concurrent reader may rely on): every bucket count and the max only grow; and because
 * a recorder raises the max <em>before</em> incrementing its bucket, while {@link #valueAtPercentile} reads the
 * buckets <em>before</em> the max, a reader that sees a value's bucket also sees a max at least that value. So a
 * percentile is never above the max read with it (the result is clamped to that max, which the invariant makes
 * exact rather than lossy). Tested by {@code LogLinearHistogramTest}'s concurrent snapshot test.
 */
final class LogLinearHistogram {

    private static final int SUB_BUCKET_BITS = 5;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
    /** Highest exponent of a positive long is 62; indexes go up to (62 - 4) * 32 + 31. */
    static final int BUCKETS = (62 - SUB_BUCKET_BITS + 1) * SUB_BUCKETS + SUB_BUCKETS;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final AtomicLong max = new AtomicLong();

    /** Creates an empty histogram. */
    public LogLinearHistogram() {
    }

    static int indexOf(long value) {
        if (value < SUB_BUCKETS) {
            return (int) value;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(value);
        int sub = (int) (value >>> (exponent - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1);
        return (exponent - SUB_BUCKET_BITS + 1) * SUB_BUCKETS + sub;
    }

    static long lowerBound(int index) {
        if (index < SUB_BUCKETS) {
            return index;
        }
        int exponent = index / SUB_BUCKETS + SUB_BUCKET_BITS - 1;
        long sub = index % SUB_BUCKETS;
        return (SUB_BUCKETS + sub) << (exponent - SUB_BUCKET_BITS);
    }

    static long width(int index) {
        if (index < SUB_BUCKETS) {
            return 1;
        }
        return 1L << (index / SUB_BUCKETS - 1);
    }

    /**
     * Records one value. Lock-free, allocation-free, thread-safe.
     *
     * @param value the value; negative values count as 0
     */
    public void record(long value) {
        long v = Math.max(0L, value);
        long current = max.get();
        while (v > current && !max.compareAndSet(current, v)) {
            current = max.get();
        }
        counts.getAndIncrement(indexOf(v));
    }

    /**
     * Returns the largest value recorded, exactly.
     *
     * @return the max, 0 when empty
     */
    public long max() {
        return max.get();
    }

    /**
     * Returns how many values were recorded (the sum of the buckets, read one by one).
     *
     * @return the count
     */
    public long count() {
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            total += counts.get(i);
        }
        return total;
    }

    /**
     * Returns the value at a percentile: the midpoint of the bucket that holds the {@code ceil(phi * count)}-th
     * smallest value, clamped to the max (so within 1.6 % of the exact percentile of what was recorded).
     *
     * @param phi the percentile as a fraction, 0 to 1
     * @param unrecordedZeros how many zeros to count in addition to what was recorded (events known to be 0 that
     *     were only counted elsewhere)
     * @return the value, 0 when empty
     * @throws IllegalArgumentException when {@code phi} is outside 0..1
     */
    public long valueAtPercentile(double phi, long unrecordedZeros) {
        checkPhi(phi);
        long[] snapshot = new long[BUCKETS];
        addCountsTo(snapshot);
        long ceiling = max.get(); // read after the buckets: see the invariant
        return valueAtPercentile(snapshot, ceiling, phi, unrecordedZeros);
    }

    static void checkPhi(double phi) {
        if (!(phi >= 0.0 && phi <= 1.0)) {
            throw new IllegalArgumentException("phi must be between 0 and 1 but was " + phi);
        }
    }

    /** Adds every bucket's count to {@code snapshot} (of {@link #BUCKETS} cells), reading them one by one. */
    void addCountsTo(long[] snapshot) {
        for (int i = 0; i < BUCKETS; i++) {
            snapshot[i] += counts.get(i);
        }
    }

    /**
     * Empties the histogram, buckets first and the max last. Not atomic: a value recorded meanwhile may keep its
     * bucket and lose its max (which is why {@link #valueAtPercentile(long[], long, double, long)} never clamps
     * below a bucket's lower bound), or survive in part. Called only when a {@link TimeWindow} restarts a buffer.
     */
    void clear() {
        for (int i = 0; i < BUCKETS; i++) {
            counts.set(i, 0L);
        }
        max.set(0L);
    }

    /**
     * The value at a percentile of bucket counts, as {@link #valueAtPercentile(double, long)} defines it: the
     * midpoint of the bucket that holds the rank, clamped to {@code ceiling} but never below the bucket's lower
     * bound (a bucket whose max a concurrent {@link #clear()} erased keeps its own bound).
     */
    static long valueAtPercentile(long[] snapshot, long ceiling, double phi, long unrecordedZeros) {
        long zeros = Math.max(0L, unrecordedZeros);
        long total = zeros;
        for (long count : snapshot) {
            total += count;
        }
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1L, (long) Math.ceil(phi * total));
        long seen = zeros;
        if (seen >= rank) {
            return 0;
        }
        for (int i = 0; i < BUCKETS; i++) {
            seen += snapshot[i];
            if (seen >= rank) {
                long midpoint = lowerBound(i) + (width(i) - 1) / 2;
                return Math.min(midpoint, Math.max(ceiling, lowerBound(i)));
            }
        }
        return ceiling;
    }
}
