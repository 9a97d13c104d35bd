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
 * {@code k}. A statistic is read over all the buffers, i.e. over the last {@code bufferLength} slices, so a value
 * counts in it for between {@code expiry - expiry / bufferLength} and {@code expiry} after it was recorded, as in a
 * Micrometer timer.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Rotated by whoever first sees the slice has moved on.</b> Windowed statistics are recorded only for timed
 * calls and queued waits (calls that read the clock anyway), never on the untimed fast path. A recorder reads the
 * window's clock and compares it with the start of the next slice (one volatile read); only once a slice does it
 * rotate: under a lock it only tries to take (a recorder never waits for it; if another thread is rotating, it
 * records into the buffer it finds), it clears the buffers of the slices that began since the last rotation (all of
 * them after a long pause) and makes the present slice's buffer current. A reader (a scrape) rotates the same way
 * first, taking the lock, so an idle statistic decays too. No allocation; the rotation itself costs clearing one
 * buffer per slice.
 *
 * <p><b>Invariant:</b> {@link #current} and {@link #nextSliceStart} are written only under {@link #lock}, after the
 * buffers of the slices up to the present one were cleared; {@link #slice} is the slice of {@link #current}'s buffer
 * and only grows. A recorder that read {@code current} just before a rotation writes into the previous slice's
 * buffer, which stays in the window for {@code bufferLength - 1} more slices, so its value is at worst counted as one
 * slice older than it is (or, after a pause of a whole window, dropped as part of it). Thread-safe.
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
    private final IntConsumer clear;
    private final ReentrantLock lock = new ReentrantLock();
    /** Written under {@link #lock} only. */
    private long slice;
    /** Written under {@link #lock} only: when {@link #slice} ends, the one time a recorder must look at. */
    private volatile long nextSliceStart;
    private volatile int current;

    /**
     * Creates a window whose first slice starts now.
     *
     * @param clock a monotonic clock in nanoseconds (the registry's, or a ticker)
     * @param expiry how long the window is, positive
     * @param bufferLength how many slices it is cut into, 1 to {@value #MAX_BUFFER_LENGTH}
     * @param clear empties the buffer of the index it is given (called under the rotation lock, never concurrently)
     * @throws IllegalArgumentException when {@code expiry} or {@code bufferLength} is out of range
     */
    public TimeWindow(LongSupplier clock, Duration expiry, int bufferLength, IntConsumer clear) {
        this.clock = Objects.requireNonNull(clock, "clock");
        checkBufferLength(bufferLength);
        this.sliceNanos = Math.max(1L, checkExpiry(expiry).toNanos() / bufferLength);
        this.bufferLength = bufferLength;
        this.clear = Objects.requireNonNull(clear, "clear");
        this.origin = clock.getAsLong();
        this.nextSliceStart = origin + sliceNanos;
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
     * Returns the index of the buffer to record into now, rotating first when a slice has ended since the last
     * rotation and no other thread is rotating. One clock reading and two volatile reads; never blocks.
     *
     * @return the index, 0 to {@code bufferLength - 1}
     */
    public int recordIndex() {
        long now = clock.getAsLong();
        if (now - nextSliceStart >= 0 && lock.tryLock()) {
            try {
                rotateLocked(now);
            } finally {
                lock.unlock();
            }
        }
        return current;
    }

    /** Brings the ring up to the present slice before a read (reading side: waits for a rotation in progress). */
    public void rotate() {
        long now = clock.getAsLong();
        if (now - nextSliceStart < 0) {
            return; // the common case of a scrape within the slice: no lock
        }
        lock.lock();
        try {
            rotateLocked(now);
        } finally {
            lock.unlock();
        }
    }

    private void rotateLocked(long now) {
        long present = Math.floorDiv(now - origin, sliceNanos);
        long last = slice;
        if (present <= last) {
            return;
        }
        for (long s = Math.max(last + 1, present - bufferLength + 1); s <= present; s++) {
            clear.accept((int) Math.floorMod(s, (long) bufferLength));
        }
        slice = present;
        current = (int) Math.floorMod(present, (long) bufferLength);
        nextSliceStart = origin + (present + 1) * sliceNanos;
    }
}
