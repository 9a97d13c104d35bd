package dev.bulwark.internal.adaptive;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;
import dev.bulwark.internal.spi.AdaptiveTarget;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;

/**
 * Gathers samples into windows and lets the algorithm decide once per window, without a lock on the per-call path.
 *
 * <h2>Windows</h2>
 * <p>For AIMD and the gradient a window closes after {@code max(windowSamples, limit)} samples: at full use, a
 * limit's worth of calls finishing is one round trip, so the limit moves at most once per round trip and its
 * decisions rest on enough samples for a steady mean (a single slow call among fast ones, common with
 * high-variance latencies, decides nothing). A drop closes the window as soon as it holds
 * {@code min(windowSamples, limit)} samples, so overload is answered within a round trip, once. Subclasses may
 * close windows by another rule ({@link #complete}); they are then asked every {@link #checkEvery} samples.
 *
 * <h2>Concurrency: the lock-free sampler</h2>
 * <p>Samples arrive concurrently from every releasing thread; at high call rates only the calls
 * {@link AdaptiveLimiter#shouldTime} picks, and every drop (an untimed drop brings no latency, which a drop never
 * adds anyway). The per-sample path is wait-free: one
 * {@code getAndAdd} on {@link #window}, which packs the window's sample count (high {@value #COUNT_SHIFT}+ bits)
 * and its latency sum in microseconds (low {@value #COUNT_SHIFT} bits) into one long, so a sample's count and
 * latency always land in the same window (successes only: a drop is an increment of {@link #drops} instead); plus a
 * read of the in-flight maximum (written only when exceeded) and, for subclasses that ask for the spread,
 * {@link DoubleAdder}s of squared latencies, their logarithms and those squared (one {@code Math.log} per timed
 * sample). The sample whose add completes a window tries to become its closer by a CAS on
 * {@link #closing}; a sample that loses simply stays in the accumulators, which the next window inherits.
 *
 * <p><b>Invariant:</b> the closer subtracts exactly the values it read ({@code getAndAdd(-read)}), never resets
 * to zero, so every sample is counted in exactly one window: none is lost and none counted twice, however closes
 * and adds interleave. A success is counted only in {@link #window} and a drop only in {@link #drops}, each taken
 * out by subtracting what was read, so a sample racing a close falls to this window or the next, never both (an
 * earlier layout counted drops in both words and could count one twice). (The spread's sums and the in-flight maximum
 * are separate words: a sample racing a close may have its square and logarithm counted in the next window, which
 * moves a geometric mean of hundreds of samples by a fraction of one sample's share. They never touch the sample
 * count.) Only the closer, holding {@link #closing}, reads or writes the algorithm's state; the CAS that
 * acquires it and the volatile write that releases it order each closer after the previous one, so that state needs no
 * lock of its own. The new limit is applied after {@link #closing} is released, through
 * {@link AdaptiveTarget#adaptLimit(int, int)}, and only if the limit still has the value the decision was based on.
 * {@code WindowedLimiterRaceTest} forces the interleavings (adds racing a close, two would-be closers) and checks the
 * invariant.
 */
abstract class WindowedLimiter extends AdaptiveLimiter {

    /** Bits of the latency sum; the sample count sits above them. */
    static final int COUNT_SHIFT = 40;
    static final long ONE_SAMPLE = 1L << COUNT_SHIFT;
    static final long SUM_MASK = ONE_SAMPLE - 1;
    /** Longest latency a sample adds (10 s, in microseconds); with at most {@link #MAX_WINDOW} samples the sum fits. */
    static final long MAX_SAMPLE_MICROS = 10_000_000L;
    /** Most samples a window holds: {@code MAX_WINDOW * MAX_SAMPLE_MICROS} stays below {@code 2^40}. */
    static final int MAX_WINDOW = 100_000;

    /** What one window saw. */
    static final class Window {
        int limit;
        long samples;
        /**
         * The successes' typical latency that the window is judged by: their arithmetic mean, unless
         * {@link #judgeBy} chose the geometric one.
         */
        double meanLatencyNanos;
        /**
         * The variance {@link #meanLatencyNanos}'s standard error is computed from, in nanoseconds squared; NaN
         * unless the spread is gathered (see {@link WindowedLimiter#WindowedLimiter(AdaptiveLimit, int, boolean)}).
         */
        double latencyVarianceNanos2 = Double.NaN;
        /** The successes' arithmetic mean latency, and their latencies' variance (NaN unless gathered). */
        double arithmeticMeanNanos;
        double arithmeticVarianceNanos2 = Double.NaN;
        /**
         * The successes' geometric mean latency (the exponential of their logarithms' mean), and the variance of
         * their logarithms times its square, so that its standard error is, to first order, the mean times the
         * logarithms' standard error. NaN unless gathered.
         */
        double geometricMeanNanos = Double.NaN;
        double geometricVarianceNanos2 = Double.NaN;
        long drops;
        int maxInFlight;
        /** Ticker reading when the window closed (the closing sample's end). */
        long closedAt;

        boolean used() {
            return maxInFlight * 2 >= limit;
        }

        /**
         * Sets {@link #meanLatencyNanos} and {@link #latencyVarianceNanos2} to the geometric or the arithmetic
         * mean's.
         *
         * @param geometric whether to judge by the geometric mean
         */
        void judgeBy(boolean geometric) {
            meanLatencyNanos = geometric ? geometricMeanNanos : arithmeticMeanNanos;
            latencyVarianceNanos2 = geometric ? geometricVarianceNanos2 : arithmeticVarianceNanos2;
        }
    }

    private final int windowSamples;
    /** Packed: sample count (successes and drops) above {@link #COUNT_SHIFT}, latency sum of successes below. */
    private final AtomicLong window = new AtomicLong();
    private final AtomicLong drops = new AtomicLong();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    /**
     * Sums of the successes' squared latencies (in microseconds), of their natural logarithms and of those
     * squared; null unless the spread is gathered.
     */
    private final DoubleAdder squares;
    private final DoubleAdder logs;
    private final DoubleAdder logSquares;
    private final AtomicBoolean closing = new AtomicBoolean();
    // Written and read only by the closer (see the class comment).
    private final Window closed = new Window();
    /** When the previous window closed (the timing mask's rate estimate), or MIN_VALUE before. Closer only. */
    private long openedAt = Long.MIN_VALUE;
    /** The algorithm's view of the limit, kept fractional between windows. Closer only. */
    double estimatedLimit;

    /**
     * @param config the configuration
     * @param initialLimit the limit the bulkhead starts at
     * @param gatherSpread whether windows gather their latencies' spread (variance, and the logarithms' mean and
     *     variance: see {@link Window}), for an algorithm that judges windows statistically
     */
    WindowedLimiter(AdaptiveLimit config, int initialLimit, boolean gatherSpread) {
        super(config);
        this.windowSamples = config.windowSamples();
        this.estimatedLimit = initialLimit;
        this.squares = gatherSpread ? new DoubleAdder() : null;
        this.logs = gatherSpread ? new DoubleAdder() : null;
        this.logSquares = gatherSpread ? new DoubleAdder() : null;
    }

    @Override
    public final void sample(AdaptiveTarget bulkhead, long endedAt, long latencyNanos, int inFlight,
                             Permit.Outcome outcome) {
        if (outcome == Permit.Outcome.IGNORED || !accepts(endedAt, latencyNanos)) {
            return;
        }
        if (inFlight > maxInFlight.get()) {
            maxInFlight.accumulateAndGet(inFlight, Math::max);
        }
        boolean drop = outcome == Permit.Outcome.DROPPED;
        long seen;
        long dropped;
        if (drop) {
            // A drop lives in `drops` alone, a success in `window` alone: each sample is in exactly one counter,
            // so no interleaving with a close can count it twice (see the class comment).
            dropped = drops.incrementAndGet();
            seen = (window.get() >>> COUNT_SHIFT) + dropped;
        } else {
            long micros = Math.min(MAX_SAMPLE_MICROS, Math.max(1L, latencyNanos / 1_000L));
            if (squares != null) {
                squares.add((double) micros * micros);
                double log = Math.log(micros);
                logs.add(log);
                logSquares.add(log * log);
            }
            long add = ONE_SAMPLE | micros;
            dropped = 0L;
            seen = (window.getAndAdd(add) + add) >>> COUNT_SHIFT;
        }
        int current = bulkhead.maxConcurrency();
        if (!mayComplete(seen, dropped, current)) {
            return;
        }
        if (!closing.compareAndSet(false, true)) {
            return; // another sample is closing this window; ours stays for the next one
        }
        int next;
        try {
            long dropCount = drops.get();
            long packed = window.get();
            long successes = packed >>> COUNT_SHIFT;
            long count = successes + dropCount;
            long sumMicros = packed & SUM_MASK;
            double sumSquares = squares == null ? Double.NaN : squares.sum();
            double sumLogs = squares == null ? Double.NaN : logs.sum();
            double sumLogSquares = squares == null ? Double.NaN : logSquares.sum();
            Window w = closed;
            w.limit = current;
            w.samples = successes;
            w.drops = dropCount;
            w.maxInFlight = maxInFlight.get();
            w.closedAt = endedAt;
            w.arithmeticMeanNanos = successes == 0 ? Double.NaN : sumMicros * 1_000.0 / successes;
            boolean spread = squares != null && successes >= 2;
            w.arithmeticVarianceNanos2 = !spread ? Double.NaN
                    : Math.max(0.0, (sumSquares - (double) sumMicros * sumMicros / successes) / (successes - 1))
                            * 1e6;
            w.geometricMeanNanos = squares == null || successes == 0 ? Double.NaN
                    : Math.exp(sumLogs / successes) * 1_000.0;
            w.geometricVarianceNanos2 = !spread ? Double.NaN
                    : Math.max(0.0, (sumLogSquares - sumLogs * sumLogs / successes) / (successes - 1))
                            * w.geometricMeanNanos * w.geometricMeanNanos;
            w.judgeBy(false);
            if (!complete(w, count) && count < MAX_WINDOW) {
                return;
            }
            // Take out exactly what this window holds (the invariant): samples added since stay for the next.
            window.getAndAdd(-packed);
            drops.getAndAdd(-dropCount);
            maxInFlight.set(0);
            if (squares != null) {
                squares.add(-sumSquares);
                logs.add(-sumLogs);
                logSquares.add(-sumLogSquares);
            }
            if (openedAt != Long.MIN_VALUE) {
                adaptTimingMask(successes, dropCount, endedAt - openedAt);
            }
            openedAt = endedAt;
            if (Math.abs(current - estimatedLimit) >= 1.0) {
                estimatedLimit = current; // someone changed the limit by hand: continue from there
                changedByHand(w);
            }
            double decided = decide(w);
            if (!Double.isNaN(decided)) { // a NaN (nothing to compare with) holds the limit, never sets it to 0
                estimatedLimit = Math.max(minLimit, Math.min(maxLimit, decided));
            }
            next = clamp(estimatedLimit);
        } finally {
            closing.set(false);
        }
        if (next != current) {
            bulkhead.adaptLimit(current, next);
        }
    }

    /**
     * Told, before {@link #decide}, that the limit is not the one this limiter last set: someone changed it by
     * hand (or, for a cluster-wide bulkhead, another instance did). The window {@code w} ends at that limit. An
     * algorithm with phases of its own ends what the change overrode; the default continues as if it had set it.
     *
     * @param w the window now closing, at the changed limit
     */
    void changedByHand(Window w) {
    }

    /** Samples gathered and not yet taken by a closed window (for the race test's accounting). */
    long pendingSamples() {
        return (window.get() >>> COUNT_SHIFT) + drops.get();
    }

    /**
     * Whether a sample of a call that ended at {@code endedAt} counts. All do, unless a subclass leaves out the
     * transition after a limit change. Called on the per-call path: must be cheap and thread-safe.
     *
     * @param endedAt ticker reading when the call ended
     * @param latencyNanos its latency, or {@link dev.bulwark.internal.stats.SampledListener#UNTIMED} for an
     *     untimed drop
     * @return whether to count it
     */
    boolean accepts(long endedAt, long latencyNanos) {
        return true;
    }

    /** Cheap pre-check on the per-call path: could the window be complete with this many samples? */
    private boolean mayComplete(long seen, long dropped, int limit) {
        int every = checkEvery(limit);
        if (every > 0) {
            return seen % every == 0 || dropped > 0 || seen >= MAX_WINDOW;
        }
        return seen >= Math.max(windowSamples, limit)
                || (dropped > 0 && seen >= Math.min(windowSamples, limit))
                || (drops.get() > 0 && seen >= Math.min(windowSamples, limit));
    }

    /**
     * For subclasses with their own closing rule: ask {@link #complete} every this many samples (and on every
     * drop). Zero (the default) means the count rule of the class comment, with {@link #complete} not consulted.
     *
     * @param limit the current limit
     * @return a sample interval, or 0
     */
    int checkEvery(int limit) {
        return 0;
    }

    /**
     * Whether the window is complete. The default is the count rule; called by the closer only.
     *
     * @param w the window so far
     * @param seen its samples, successes and drops
     * @return whether to decide now
     */
    boolean complete(Window w, long seen) {
        return seen >= Math.max(windowSamples, w.limit) || (w.drops > 0 && seen >= Math.min(windowSamples, w.limit));
    }

    /**
     * Decides the next limit from a closed window. Called by the closer only.
     *
     * @param closed the window (its mean latency is NaN when it held only drops)
     * @return the new estimated limit, before clamping to the range
     */
    abstract double decide(Window closed);
}
