package dev.bulwark.internal.stats;

import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Decides which calls a bulkhead times for its statistics, so that at high call rates most calls read no clock (a
 * clock read costs about as much as a whole uncontended call) while the timers still see plenty of samples.
 *
 * <h2>Design notes</h2>
 *
 * <p>A call is timed when {@code random & mask == 0}, with a thread-local random number: one call in
 * {@code mask + 1}, {@code mask} being {@code 2^k - 1}, 0 (time every call) up to {@value #MAX_MASK} (one in 256).
 * Random rather than every n-th call so that a periodic workload cannot alias with the sampling, and thread-local so
 * that deciding writes no shared memory.
 *
 * <p>The mask follows the call rate: every timed call reports its clock reading ({@link #timed}); once per window of
 * {@value #WINDOW_NANOS} ns the thread that closes the window (by CAS of {@link #windowStart}, so exactly one)
 * estimates the call rate as timed-calls-per-second times {@code mask + 1} and sets {@code mask + 1} to the largest
 * power of two not above {@code rate / }{@value #TARGET_PER_SECOND}. Hence between {@value #TARGET_PER_SECOND} and
 * twice that many calls a second are timed (every call when there are fewer; more above 256,000 calls a second, where
 * the interval stops growing), comfortably above the 100 a second a timer needs; after the rate drops, the first
 * timed call of the next window (on average 256 calls later at most) adapts the mask at once.
 * Why 256 at most: a timed call costs two clock reads and four atomic additions (histogram bucket, count, total,
 * this window's count), about three bare calls; at one in 64 that was still about 4 % of an uncontended call, at
 * one in 256 it is about 1 %, while a busy bulkhead still times more than 1,000 calls a second.
 * Races on the counters lose at most a few counts of a window, which only shifts one estimate; they never affect the
 * exact call counts, which are kept elsewhere.
 *
 * <p>Invariant: {@code 0 <= mask <= MAX_MASK} and {@code mask + 1} is a power of two; a sampler made with
 * {@link #exact()} keeps {@code mask == 0}.
 */
public final class TimingSampler {

    static final int MAX_MASK = 255;
    static final long WINDOW_NANOS = 100_000_000L;
    static final long TARGET_PER_SECOND = 1_000L;

    private static final VarHandle WINDOW_START = VarHandles.field(MethodHandles.lookup(), "windowStart", long.class);
    private static final VarHandle TIMED_IN_WINDOW =
            VarHandles.field(MethodHandles.lookup(), "timedInWindow", long.class);

    private final boolean adaptive;
    /** Time one call in {@code mask + 1}. Plain reads on the call path are fine: any recent value will do. */
    private volatile int mask;
    /** Ticker reading that opened the current window; {@link Long#MIN_VALUE} before the first timed call. */
    private volatile long windowStart = Long.MIN_VALUE;
    private volatile long timedInWindow;

    private TimingSampler(boolean adaptive) {
        this.adaptive = adaptive;
    }

    /**
     * Returns a sampler that adapts to the call rate.
     *
     * @return a new sampler
     */
    public static TimingSampler adaptive() {
        return new TimingSampler(true);
    }

    /**
     * Returns a sampler that times every call.
     *
     * @return a new sampler
     */
    public static TimingSampler exact() {
        return new TimingSampler(false);
    }

    /**
     * Returns whether the next call should be timed. No shared write; a thread-local random read when sampling.
     *
     * @return {@code true} to time it
     */
    public boolean shouldTime() {
        int m = mask;
        return m == 0 || (ThreadLocalRandom.current().nextInt() & m) == 0;
    }

    /**
     * Returns the current mask (for tests and diagnostics).
     *
     * @return one less than the sampling interval
     */
    public int mask() {
        return mask;
    }

    /**
     * Reports a timed call, with the clock reading already taken for it, and adapts the mask once per window.
     *
     * @param now the ticker reading of the call
     */
    public void timed(long now) {
        if (!adaptive) {
            return;
        }
        long timed = (long) TIMED_IN_WINDOW.getAndAdd(this, 1L) + 1;
        long start = windowStart;
        if (start == Long.MIN_VALUE) {
            WINDOW_START.compareAndSet(this, Long.MIN_VALUE, now);
            return;
        }
        long elapsed = now - start;
        if (elapsed < WINDOW_NANOS || !WINDOW_START.compareAndSet(this, start, now)) {
            return;
        }
        TIMED_IN_WINDOW.getAndAdd(this, -timed);
        double callsPerSecond = timed * 1e9 / elapsed * (mask + 1);
        mask = maskFor(callsPerSecond);
    }

    /** The mask that times about {@link #TARGET_PER_SECOND} calls a second at this rate, at least half of that. */
    static int maskFor(double callsPerSecond) {
        double interval = callsPerSecond / TARGET_PER_SECOND;
        int m = 0;
        while ((m + 1) * 2 <= interval && m < MAX_MASK) {
            m = m * 2 + 1;
        }
        return m;
    }
}
