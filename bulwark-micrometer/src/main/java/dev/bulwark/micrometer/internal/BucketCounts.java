package dev.bulwark.micrometer.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Durations counted into fixed buckets for a histogram a fleet can aggregate: one slot per upper bound and one for
 * the values above the last, each the sum of the weights of the values recorded into it. Cumulative since creation
 * (a Prometheus histogram's buckets never decay); monotonic.
 *
 * <p>A value's weight is how many calls it stands for: 1 for a call that was timed because every call is, the
 * sampling interval for a call timed as one of a sample, so that an instance that samples one call in 256 weighs as
 * much in a fleet-wide sum as the calls it made. Recording is a binary search over the bounds and one atomic
 * addition; no lock, no allocation. Thread-safe.
 */
final class BucketCounts {

    /** The upper bounds in nanoseconds, ascending, each inclusive (a value equal to a bound is counted in it). */
    private final long[] upperBoundsNanos;
    /** One slot per bound, then one for the values above the last bound. */
    private final AtomicLongArray counts;

    BucketCounts(long[] upperBoundsNanos) {
        this.upperBoundsNanos = upperBoundsNanos;
        this.counts = new AtomicLongArray(upperBoundsNanos.length + 1);
    }

    /**
     * Counts one value.
     *
     * @param nanos the duration; negative counts as 0
     * @param weight how many calls it stands for, at least 1
     */
    void record(long nanos, long weight) {
        counts.getAndAdd(slotOf(Math.max(0L, nanos)), weight);
    }

    /** The first slot whose bound is at least {@code nanos} (the overflow slot when none is). */
    private int slotOf(long nanos) {
        int low = 0;
        int high = upperBoundsNanos.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (upperBoundsNanos[middle] < nanos) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** The upper bound of {@code slot} (not the overflow) in seconds. */
    double upperBoundSeconds(int slot) {
        return upperBoundsNanos[slot] / 1e9;
    }

    /** How many slots there are: one per bound and the overflow. */
    int slots() {
        return counts.length();
    }

    /** The weight counted into {@code slot} so far. */
    long count(int slot) {
        return counts.get(slot);
    }
}
