package dev.bulwark.internal.stats;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * The ring of buffers behind a windowed statistic, rotating like Micrometer's distribution statistics: the window
 * ({@code expiry}) is cut into {@code bufferLength} slices of time, slice {@code k} being
 * {@code [origin + k * slice, origin + (k + 1) * slice)}, and buffer {@code k mod bufferLength} holds slice
 * {@code k}. A statistic is read over all the buffers, i.e. over the last {@code bufferLength} slices.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Rotated by the reader, never by the recorder.</b> A recorder writes into the {@link #current()} buffer: one
 * volatile read, no clock reading (a clock reading costs as much as an uncontended call, and the call path must not
 * pay it), no lock. A reader (a scrape) first calls {@link #rotate}: it reads the clock, and when the slice has moved
 * on since the last rotation it clears the buffers of the slices that began since (all of them after a long pause)
 * and makes the buffer of the present slice current. Rotation takes a lock, on the reading side only, so that two
 * concurrent scrapes never interleave their clearing.
 *
 * <p><b>What a value's lifetime is.</b> A value goes to the buffer of the slice of the last rotation, which may be
 * earlier than the slice it was recorded in (values recorded since the last read go to the current buffer). That
 * buffer is cleared when the ring comes round to it, so a value leaves the statistic at most {@code expiry} after it
 * was recorded, whatever the reads, and stays in it for at least {@code expiry - expiry / bufferLength} less the time
 * since the read before it was recorded. With reads more frequent than slices (a scrape every 15 to 60 seconds, the
 * default slice being 40 seconds), a value counts for 1 to 2 minutes, as with Micrometer's defaults.
 *
 * <p><b>Invariant:</b> {@link #current} is written only under {@link #lock}, after the buffer it designates was
 * cleared for its slice; {@link #slice} is the slice of {@link #current}'s buffer and only grows. Recorders that read
 * {@code current} just before a rotation write into the previous slice's buffer, which is still in the window (unless
 * the rotation skipped a whole window, when their value is simply older than it). Thread-safe.
 */
public final class TimeWindow {

    /** Micrometer's default {@code distributionStatisticExpiry}. */
    public static final Duration DEFAULT_EXPIRY = Duration.ofMinutes(2);
    /** Micrometer's default {@code distributionStatisticBufferLength}. */
    public static final int DEFAULT_BUFFER_LENGTH = 3;
    /** At most this many buffers: each costs a histogram (15 KB) per windowed statistic. */
    public static final int MAX_BUFFER_LENGTH = 60;

    private final LongSupplier clock;
    private final long origin;
    private final long sliceNanos;
    private final int bufferLength;
    private final ReentrantLock lock = new ReentrantLock();
    /** Written under {@link #lock} only; volatile for the unlocked check of {@link #rotate}. */
    private volatile long slice;
    private volatile int current;

    /**
     * Creates a window whose first slice starts now.
     *
     * @param clock a monotonic clock in nanoseconds (the registry's, or a ticker), read only by {@link #rotate}
     * @param expiry how long the window is, positive
     * @param bufferLength how many slices it is cut into, 1 to {@value #MAX_BUFFER_LENGTH}
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public TimeWindow(LongSupplier clock, Duration expiry, int bufferLength) {
        this.clock = Objects.requireNonNull(clock, "clock");
        checkBufferLength(bufferLength);
        this.sliceNanos = Math.max(1L, checkExpiry(expiry).toNanos() / bufferLength);
        this.bufferLength = bufferLength;
        this.origin = clock.getAsLong();
    }

    /**
     * Checks a window's length.
     *
     * @param expiry the length
     * @return {@code expiry}
     * @throws NullPointerException when {@code expiry} is {@code null}
     * @throws IllegalArgumentException when it is zero or negative
     */
    public static Duration checkExpiry(Duration expiry) {
        Objects.requireNonNull(expiry, "expiry");
        if (expiry.isNegative() || expiry.isZero()) {
            throw new IllegalArgumentException("expiry must be positive but was " + expiry);
        }
        return expiry;
    }

    /**
     * Checks a window's number of buffers.
     *
     * @param bufferLength the number
     * @return {@code bufferLength}
     * @throws IllegalArgumentException when it is not between 1 and {@value #MAX_BUFFER_LENGTH}
     */
    public static int checkBufferLength(int bufferLength) {
        if (bufferLength < 1 || bufferLength > MAX_BUFFER_LENGTH) {
            throw new IllegalArgumentException("bufferLength must be between 1 and " + MAX_BUFFER_LENGTH
                    + " but was " + bufferLength);
        }
        return bufferLength;
    }

    /**
     * Returns how many buffers the ring has.
     *
     * @return the buffer length
     */
    public int bufferLength() {
        return bufferLength;
    }

    /**
     * Returns the index of the buffer recorders write into. One volatile read; no clock, no lock.
     *
     * @return the index, 0 to {@code bufferLength - 1}
     */
    public int current() {
        return current;
    }

    /**
     * Brings the ring up to the present slice (reading side only): clears, through {@code clear}, every buffer
     * whose slice began since the last rotation, then makes the present slice's buffer current.
     *
     * @param clear empties the buffer of the index it is given
     */
    public void rotate(IntConsumer clear) {
        long present = Math.floorDiv(clock.getAsLong() - origin, sliceNanos);
        if (present <= slice) {
            return; // the common case of a scrape within the slice: no lock
        }
        lock.lock();
        try {
            long last = slice;
            if (present <= last) {
                return;
            }
            for (long s = Math.max(last + 1, present - bufferLength + 1); s <= present; s++) {
                clear.accept((int) Math.floorMod(s, (long) bufferLength));
            }
            slice = present;
            current = (int) Math.floorMod(present, (long) bufferLength);
        } finally {
            lock.unlock();
        }
    }
}
