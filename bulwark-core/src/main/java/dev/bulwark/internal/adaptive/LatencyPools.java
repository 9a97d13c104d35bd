package dev.bulwark.internal.adaptive;

/**
 * What {@link SelfTuningLimiter} has learnt about latencies, per limit: the pooled latency sums, sums of squares
 * and counts of the windows it judged not slower (and of its pinned measurements), from which its reference is
 * computed. What was learnt long ago weighs less: every pool is halved once per half-life.
 *
 * <p>The reference for a limit pools the limits up to four fifths of it (so that slightly slow windows just
 * below the limit cannot inflate it and let the limit creep above the capacity), or, while those hold fewer than
 * 64 samples, the limits below it, or up to it. Windows judged slower are never pooled, and most pooled samples
 * lie at or below the capacity where the limit spends its time, so one slightly slow inconclusive window above it
 * moves the reference little (the creep this could cause is bounded by the quadratic slowdown beyond).
 *
 * <p>It also gives a window's standard error against a pool ({@link #windowError(WindowedLimiter.Window, double[])}),
 * which the pool's own variability floors.
 *
 * <p>Not thread-safe: only the window's closer uses it (see {@link WindowedLimiter}), which orders every use
 * after the previous one.
 */
final class LatencyPools {

    /** The pools forget by halving this often. */
    private static final long HALF_LIFE_NANOS = 30_000_000_000L;
    /** Limits tracked one by one; higher ones share the last pool. */
    private static final int TRACKED_LIMITS = 1024;

    /**
     * Whether the pools hold geometric means (pooled as the means and variances of logarithms) rather than
     * arithmetic ones.
     */
    private final boolean geometric;
    private final double[] sum = new double[TRACKED_LIMITS];
    private final double[] squares = new double[TRACKED_LIMITS];
    private final double[] count = new double[TRACKED_LIMITS];
    /** Drops, and calls (timed successes and drops), of the same windows: the share the resource drops anyway. */
    private final double[] dropped = new double[TRACKED_LIMITS];
    private final double[] calls = new double[TRACKED_LIMITS];
    private long halvedAt;
    /** {@link #reference} of {@link #cachedFor}, valid until a pool changes. */
    private double[] cachedReference;
    private int cachedFor = -1;
    /** {@link #below} of {@link #cachedBelowFor}, valid until a pool changes. */
    private double[] cachedBelow;
    private int cachedBelowFor = -1;
    /** {@link #all}, valid until a pool changes; null when not computed. */
    private double[] cachedAll;

    /**
     * @param geometric whether the windows added are judged by their geometric mean (see
     *     {@link WindowedLimiter.Window}); they are then pooled on the logarithms' scale
     */
    LatencyPools(boolean geometric) {
        this.geometric = geometric;
    }

    /**
     * The reference for windows at {@code limit} (see above). Windows are checked every few samples and the pools
     * change only when one closes, so it is computed once per limit and pool change.
     *
     * @param limit the window's limit
     * @return {mean, standard error of the mean, count, coefficient of variation, drops, calls}; NaNs and counts of 0
     *     when empty
     */
    double[] reference(int limit) {
        if (limit == cachedFor) {
            return cachedReference;
        }
        double[] pooled = upTo((int) Math.floor(0.8 * limit));
        if (pooled[2] < 64) {
            pooled = upTo(Math.max(1, limit - 1));
        }
        if (pooled[2] < 16) {
            pooled = upTo(limit);
        }
        cachedReference = pooled;
        cachedFor = limit;
        return pooled;
    }

    /**
     * The pool of every limit below {@code limit} (the verdict's second opinion, see {@link WindowVerdicts}),
     * cached like {@link #reference}.
     *
     * @param limit the window's limit
     * @return what {@link #upTo} returns for {@code limit - 1}
     */
    double[] below(int limit) {
        if (limit != cachedBelowFor) {
            cachedBelow = upTo(limit - 1);
            cachedBelowFor = limit;
        }
        return cachedBelow;
    }

    /**
     * Every limit's pool together, cached like {@link #reference}.
     *
     * @return what {@link #upTo} returns for the highest limit
     */
    double[] all() {
        if (cachedAll == null) {
            cachedAll = upTo(TRACKED_LIMITS - 1);
        }
        return cachedAll;
    }

    /**
     * The pool of {@code limit} alone (limits from 1023 up share one pool).
     *
     * @param limit the limit
     * @return {mean, standard error of the mean, count, coefficient of variation, drops, calls}; NaNs and counts of 0
     *     when empty
     */
    double[] at(int limit) {
        int i = Math.min(limit, TRACKED_LIMITS - 1);
        return summary(geometric, sum[i], squares[i], count[i], dropped[i], calls[i]);
    }

    /**
     * Adds a window's latencies to the pool of its limit.
     *
     * @param limit the window's limit
     * @param meanNanos its mean latency
     * @param varianceNanos2 its latency variance, or NaN when unknown (counted as 0)
     * @param samples its number of timed successes
     * @param drops its drops
     */
    void add(int limit, double meanNanos, double varianceNanos2, long samples, long drops) {
        forgetCached();
        int i = Math.min(limit, TRACKED_LIMITS - 1);
        // Geometric means are pooled on the logarithms' scale, where they and their variances come from (see Window).
        double mean = geometric ? Math.log(meanNanos) : meanNanos;
        double variance = Double.isNaN(varianceNanos2) ? 0.0
                : geometric ? varianceNanos2 / (meanNanos * meanNanos) : varianceNanos2;
        sum[i] += mean * samples;
        squares[i] += variance * (samples - 1) + mean * mean * samples;
        count[i] += samples;
        dropped[i] += drops;
        calls[i] += samples + drops;
    }

    /** Drops the cached pools: called by every change to a pool. */
    private void forgetCached() {
        cachedFor = -1;
        cachedBelowFor = -1;
        cachedAll = null;
    }

    /** Forgets everything. */
    void clear() {
        forgetCached();
        java.util.Arrays.fill(sum, 0.0);
        java.util.Arrays.fill(squares, 0.0);
        java.util.Arrays.fill(count, 0.0);
        java.util.Arrays.fill(dropped, 0.0);
        java.util.Arrays.fill(calls, 0.0);
    }

    /**
     * Forgets the pools of the limits {@code from} to {@code to}.
     *
     * @param from the lowest limit forgotten
     * @param to the highest limit forgotten
     */
    void clear(int from, int to) {
        forgetCached();
        int last = Math.min(to, TRACKED_LIMITS - 1);
        for (int i = Math.max(0, from); i <= last; i++) {
            sum[i] = 0.0;
            squares[i] = 0.0;
            count[i] = 0.0;
            dropped[i] = 0.0;
            calls[i] = 0.0;
        }
    }

    /**
     * Halves every pool if a half-life has passed since the last halving.
     *
     * @param now the ticker reading
     * @return whether the pools changed
     */
    boolean forgetSlowly(long now) {
        if (now - halvedAt < HALF_LIFE_NANOS) {
            return false;
        }
        halvedAt = now;
        forgetCached();
        for (int i = 0; i < TRACKED_LIMITS; i++) {
            sum[i] *= 0.5;
            squares[i] *= 0.5;
            count[i] *= 0.5;
            dropped[i] *= 0.5;
            calls[i] *= 0.5;
        }
        return true;
    }

    /**
     * Pools the limits 0 to {@code highest}.
     *
     * @param highest the highest limit included
     * @return {mean, standard error of the mean, count, coefficient of variation, drops, calls}; NaNs and counts of 0
     *     when empty
     */
    double[] upTo(int highest) {
        return between(0, highest);
    }

    /**
     * Pools the limits {@code lowest} to {@code highest}.
     *
     * @param lowest the lowest limit included
     * @param highest the highest limit included
     * @return what {@link #upTo} returns
     */
    double[] between(int lowest, int highest) {
        int last = Math.min(highest, TRACKED_LIMITS - 1);
        double s = 0;
        double q = 0;
        double n = 0;
        double d = 0;
        double c = 0;
        for (int i = Math.max(0, lowest); i <= last; i++) {
            s += sum[i];
            q += squares[i];
            n += count[i];
            d += dropped[i];
            c += calls[i];
        }
        return summary(geometric, s, q, n, d, c);
    }

    private static double[] summary(boolean geometric, double s, double q, double n, double drops, double calls) {
        if (n == 0) {
            return new double[] {Double.NaN, Double.NaN, 0, Double.NaN, drops, calls};
        }
        double mean = s / n;
        double variance = Math.max(0.0, q / n - mean * mean);
        if (!geometric) {
            return new double[] {mean, Math.sqrt(variance / n), n, Math.sqrt(variance) / mean, drops, calls};
        }
        // To first order, a geometric mean's standard error is the mean times its logarithms' standard error, and
        // the logarithms' standard deviation is its coefficient of variation.
        double geometricMean = Math.exp(mean);
        return new double[] {geometricMean, geometricMean * Math.sqrt(variance / n), n, Math.sqrt(variance), drops,
            calls};
    }

    /**
     * A window's standard error of the mean, from its own variance (its mean when the variance is unknown).
     *
     * @param w the window
     * @return nanoseconds
     */
    static double windowError(WindowedLimiter.Window w) {
        return Double.isNaN(w.latencyVarianceNanos2) ? w.meanLatencyNanos
                : Math.sqrt(w.latencyVarianceNanos2 / w.samples);
    }

    /**
     * The window's standard error, at least what the reference's coefficient of variation implies for the
     * window's mean: a small window's own variance is an unreliable estimate, and for skewed latencies it is
     * smallest exactly when its mean is (a run of short calls), so on its own it made chance fast windows look
     * "clearly not slower" and grew the limit above the capacity.
     *
     * @param w the window
     * @param reference what {@link #reference} or {@link #upTo} returned
     * @return nanoseconds
     */
    static double windowError(WindowedLimiter.Window w, double[] reference) {
        double own = windowError(w);
        double cv = reference.length > 3 ? reference[3] : Double.NaN;
        return Double.isNaN(cv) ? own : Math.max(own, cv * w.meanLatencyNanos / Math.sqrt(w.samples));
    }
}
