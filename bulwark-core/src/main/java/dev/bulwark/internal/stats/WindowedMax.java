package dev.bulwark.internal.stats;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The largest value recorded over a recent window, like Micrometer's {@code TimeWindowMax}: a {@link TimeWindow}
 * ring of maxima, where a statistic needs no percentiles (a few longs instead of histograms).
 *
 * <p>Recording is one clock reading, two volatile reads and a compare-and-set only when the value raises the current
 * buffer's max; no lock, no allocation. Reading rotates the ring (see {@link TimeWindow}) and takes the largest buffer.
 * Invariant: each buffer's max only grows between two clearings by a rotation. Thread-safe.
 */
public final class WindowedMax {

    private final TimeWindow window;
    private final AtomicLongArray maxima;

    /**
     * Creates an empty windowed max.
     *
     * @param clock a monotonic clock in nanoseconds
     * @param expiry how long the window is
     * @param bufferLength how many slices it is cut into
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public WindowedMax(LongSupplier clock, Duration expiry, int bufferLength) {
        AtomicLongArray ring = new AtomicLongArray(TimeWindow.checkBufferLength(bufferLength));
        this.maxima = ring;
        this.window = new TimeWindow(clock, expiry, bufferLength, index -> ring.set(index, 0L));
    }

    /**
     * Records one value. Lock-free (a rotation is only tried), allocation-free.
     *
     * @param value the value
     */
    public void record(long value) {
        int index = window.recordIndex();
        long current = maxima.get(index);
        while (value > current && !maxima.compareAndSet(index, current, value)) {
            current = maxima.get(index);
        }
    }

    /**
     * Returns the largest value recorded in the window.
     *
     * @return the max, 0 when the window is empty
     */
    public long max() {
        window.rotate();
        long max = 0L;
        for (int i = 0; i < maxima.length(); i++) {
            max = Math.max(max, maxima.get(i));
        }
        return max;
    }
}
