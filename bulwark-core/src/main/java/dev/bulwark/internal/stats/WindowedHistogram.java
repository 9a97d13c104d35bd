package dev.bulwark.internal.stats;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Max and percentiles of the values recorded over a recent window: a {@link TimeWindow} ring of
 * {@link LogLinearHistogram}s, read by merging them (so a percentile is still within 1.6 % of the exact percentile of
 * the values in the window).
 *
 * <p>Recording is one clock reading, two volatile reads and the histogram's record (two or three atomic operations),
 * no lock, no allocation, and once per slice the rotation (see {@link TimeWindow}). Reading rotates the ring first
 * and sums the buffers' buckets; it allocates one snapshot array per percentile read.
 *
 * <p><b>Invariant</b> (on top of {@link LogLinearHistogram}'s): the max of the merge is the max of the buffers' maxes,
 * each read after its buckets, so a reader that sees a value's bucket sees a max at least that value, except when a
 * rotation clears that buffer concurrently, which only ever drops values that are leaving the window. Thread-safe.
 */
public final class WindowedHistogram {

    private final TimeWindow window;
    private final LogLinearHistogram[] buffers;

    /**
     * Creates an empty windowed histogram.
     *
     * @param clock a monotonic clock in nanoseconds
     * @param expiry how long the window is
     * @param bufferLength how many slices it is cut into
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public WindowedHistogram(LongSupplier clock, Duration expiry, int bufferLength) {
        LogLinearHistogram[] ring = new LogLinearHistogram[TimeWindow.checkBufferLength(bufferLength)];
        for (int i = 0; i < bufferLength; i++) {
            ring[i] = new LogLinearHistogram();
        }
        this.buffers = ring;
        this.window = new TimeWindow(clock, expiry, bufferLength, index -> ring[index].clear());
    }

    /**
     * Records one value. Lock-free (a rotation is only tried), allocation-free.
     *
     * @param value the value; negative values count as 0
     */
    public void record(long value) {
        buffers[window.recordIndex()].record(value);
    }

    /**
     * Returns the largest value recorded in the window.
     *
     * @return the max, 0 when the window is empty
     */
    public long max() {
        window.rotate();
        long max = 0L;
        for (LogLinearHistogram buffer : buffers) {
            max = Math.max(max, buffer.max());
        }
        return max;
    }

    /**
     * Returns the value at a percentile of the values recorded in the window (as
     * {@link LogLinearHistogram#valueAtPercentile(double, long)} defines it).
     *
     * @param phi the percentile as a fraction, 0 to 1
     * @return the value, 0 when the window is empty
     * @throws IllegalArgumentException when {@code phi} is outside 0..1
     */
    public long valueAtPercentile(double phi) {
        LogLinearHistogram.checkPhi(phi);
        window.rotate();
        long[] snapshot = new long[LogLinearHistogram.BUCKETS];
        long ceiling = 0L;
        for (LogLinearHistogram buffer : buffers) {
            buffer.addCountsTo(snapshot);
            ceiling = Math.max(ceiling, buffer.max()); // after its buckets: see the invariant
        }
        return LogLinearHistogram.valueAtPercentile(snapshot, ceiling, phi, 0L);
    }
}
