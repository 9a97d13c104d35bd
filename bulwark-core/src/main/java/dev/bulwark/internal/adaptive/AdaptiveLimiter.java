package dev.bulwark.internal.adaptive;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;
import dev.bulwark.internal.spi.AdaptiveTarget;
import java.util.function.Predicate;

/**
 * The per-bulkhead state of an {@link AdaptiveLimit}: fed one sample per finished call, it decides the bulkhead's
 * next limit and applies it through {@link AdaptiveTarget#adaptLimit(int, int)} (the in-process bulkhead, or the
 * cluster-wide one through {@link dev.bulwark.internal.spi.AdaptiveSampler}). Thread-safe: samples arrive
 * concurrently from every releasing thread.
 *
 * <p>With {@link AdaptiveLimiters}, which makes them, the whole of {@code dev.bulwark.internal.adaptive} that other
 * packages see: a bulkhead calls only the three methods of {@link dev.bulwark.internal.spi.AdaptiveSampler}, and
 * the in-process one holds this class rather than the interface so that those calls bind to its final methods. The
 * algorithms (the subclasses) and their statistics are package-private. A limiter moves the limit only through
 * {@link AdaptiveTarget}: nothing in this package names a bulkhead.
 */
public abstract class AdaptiveLimiter implements dev.bulwark.internal.spi.AdaptiveSampler {

    /**
     * Timed samples a second the timing mask aims at, at least: at lower call rates every call is timed (so the
     * virtual-time simulator and {@code bulwark compare}, at a few thousand calls a second, time every call and
     * stay deterministic); above twice this rate one call in {@code mask + 1} is.
     */
    static final long TIMED_PER_SECOND = 4_096L;
    /** Time at least one call in 64. */
    static final int MAX_TIMING_MASK = 63;

    final int minLimit;
    final int maxLimit;
    private final Predicate<? super Throwable> dropWhen;
    /**
     * Time one call in {@code timingMask + 1} (a power of two): a clock read costs about as much as a whole
     * uncontended call, and the algorithm needs a steady stream of latency samples, not every latency. Written by
     * the window's closer only ({@link #adaptTimingMask}); any recent value will do for readers. Invariant:
     * {@code timingMask + 1} is a power of two between 1 and {@code MAX_TIMING_MASK + 1}.
     */
    private volatile int timingMask;
    /**
     * Calls seen while sampling, one counter per stripe of threads: {@link #STRIPES} stripes by thread id,
     * {@link #STRIPE_SPACING} ints apart so that each is alone on its cache line (the array's first line is left to
     * its header). Plain reads and writes on purpose: a lost update under a race only shifts which call is timed.
     * Striped because one shared counter, written by every call, moved its cache line between the calling cores on
     * every call of a contended bulkhead, on top of the line of the bulkhead's state word. A thread always uses the
     * same stripe, so a single-threaded run (the virtual-time simulator) stays deterministic: no random numbers, and
     * a seeded simulation stays byte-identical.
     */
    private final int[] calls = new int[(STRIPES + 1) * STRIPE_SPACING];
    private static final int STRIPES = 8;
    /** 16 ints = 64 bytes: each stripe on a cache line of its own. */
    private static final int STRIPE_SPACING = 16;

    AdaptiveLimiter(AdaptiveLimit config) {
        this.minLimit = config.minLimit();
        this.maxLimit = config.maxLimit();
        this.dropWhen = config.dropWhen();
    }

    /**
     * Whether the call being admitted should be timed for the algorithm. Every call is timed while the call rate
     * is below about twice {@value #TIMED_PER_SECOND} a second; above, one in {@code mask + 1}. Untimed calls that
     * succeed or are ignored are not sampled at all; drops always are (see the in-process bulkhead). No atomic
     * operation: one volatile read and, when sampling, one plain increment.
     *
     * @return whether to read the clock at admission and sample the call's latency at release
     */
    @Override
    public final boolean shouldTime() {
        int mask = timingMask;
        if (mask == 0) {
            return true;
        }
        int[] counts = calls;
        int stripe = stripeOf(Thread.currentThread());
        int n = counts[stripe] + 1;
        counts[stripe] = n;
        return (n & mask) == 0;
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() returns the same id.
    private static int stripeOf(Thread thread) {
        return ((int) thread.getId() & (STRIPES - 1)) * STRIPE_SPACING + STRIPE_SPACING;
    }

    /** The current timing mask, for tests. */
    final int timingMask() {
        return timingMask;
    }

    /**
     * Sets the timing mask from the call rate a window saw. Called by the window's closer only.
     *
     * @param timedSuccesses the timed successes the window took (one call in {@code mask + 1})
     * @param drops the drops it took (every one)
     * @param elapsedNanos how long the window lasted
     */
    final void adaptTimingMask(long timedSuccesses, long drops, long elapsedNanos) {
        if (elapsedNanos <= 0) {
            return;
        }
        double callsPerSecond = ((double) timedSuccesses * (timingMask + 1) + drops) * 1e9 / elapsedNanos;
        double interval = callsPerSecond / TIMED_PER_SECOND;
        int mask = 0;
        while ((mask + 1) * 2 <= interval && mask < MAX_TIMING_MASK) {
            mask = mask * 2 + 1;
        }
        if (mask != timingMask) {
            timingMask = mask;
        }
    }

    /** Classifies a failure of {@code call}/{@code callAsync}. Never throws. */
    @Override
    public final Permit.Outcome classify(Throwable failure) {
        try {
            return dropWhen.test(failure) ? Permit.Outcome.DROPPED : Permit.Outcome.IGNORED;
        } catch (RuntimeException predicateFailure) {
            return Permit.Outcome.IGNORED;
        }
    }

    final int clamp(double limit) {
        if (!(limit > minLimit)) { // NaN included: never a limit of 0
            return minLimit;
        }
        return limit >= maxLimit ? maxLimit : (int) Math.round(limit);
    }

    /**
     * Takes one sample.
     *
     * @param bulkhead the bulkhead whose limit this moves
     * @param endedAt ticker reading when the call was released
     * @param latencyNanos from admission to release; {@link dev.bulwark.internal.stats.SampledListener#UNTIMED}
     *     for a drop that was not timed (only drops are sampled untimed)
     * @param inFlight slots in use when it finished, itself included
     * @param outcome how it went
     */
    @Override
    public abstract void sample(AdaptiveTarget bulkhead, long endedAt, long latencyNanos, int inFlight,
                                Permit.Outcome outcome);
}
