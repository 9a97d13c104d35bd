package dev.bulwark.internal.adaptive;

/**
 * The statistical tests {@link SelfTuningLimiter} judges its windows by, against what {@link LatencyPools} has
 * learnt: whether a window is clearly slower than the reference allows, clearly not, or undecided; how deep a cut
 * the slowdown calls for; and the checks of pinned measurements against what was learnt.
 *
 * <p><b>Why the threshold is {@code 1 + 1/limit}.</b> On a processor-sharing resource of capacity {@code c} that
 * thrashes with degradation 1 (the simulator's model, and a fair picture of a database or a thread pool), each
 * call's latency is its work times {@code (n/c)^2} once {@code n > c} calls are in flight, and exactly its work
 * below. One call above capacity therefore slows calls by about {@code 1 + 2/c}; half of that separates "at
 * capacity" from "one above", whatever {@code c} is, which the limit itself approximates. The cut
 * {@code limit / sqrt(latency / baseline)} ({@link #cut}) inverts the same law, so one window takes a limit of 60
 * against a capacity of 20 straight back to 20.
 *
 * <p><b>Why two bounds.</b> A window is looked at every few samples until it is clear (sequential windows, see
 * {@link SelfTuningLimiter}); "slower" needs {@link #Z_SLOWER} standard errors, stricter than the {@link #Z} of
 * "clearly not", so that the many looks do not add up to false alarms, each of which costs a cut; the own-limit
 * opinion needs {@link #Z_FASTER_ON_THE_WAY} on the way and {@link #Z} at the close. Each test's standard error
 * combines the window's (floored by the compared pool's coefficient of variation, see
 * {@link LatencyPools#windowError(WindowedLimiter.Window, double[])}) with that pool's.
 *
 * <p>Only the window's closer calls it (see {@link WindowedLimiter}); it keeps no state of its own beyond the
 * pools it reads, which the same closer writes.
 */
final class WindowVerdicts {

    static final double Z = 2.0;
    static final double Z_SLOWER = 2.5;
    /** How many times the reference's samples the wider pool must hold to give a second opinion. */
    static final double WIDE_POOL = 4.0;
    /**
     * How clear a probe must be to replace everything learnt (or to let the reference follow a slower resource):
     * stricter than a window's verdict, since the price of a false alarm is not one move but a reference rebuilt
     * from a single probe's 128 calls (a chance-fast probe at 14 ms against a 20 ms resource, at two standard
     * errors, kept the limit at half the capacity for the rest of a run).
     */
    static final double Z_CHANGED = 3.0;
    /** Standard errors by which a window looked at on its way must be faster than its own limit's pool. */
    static final double Z_FASTER_ON_THE_WAY = 3.0;
    /** The fewest samples the pool of a window's own limit must hold to give an opinion. */
    static final double OWN_POOL = 1000.0;
    /** The fewest calls the reference must hold for its drop share to be compared with ({@link #dropsClearlyMore}). */
    static final double DROP_POOL = 64.0;
    /** See {@link #referenceDominates}. */
    static final double REFERENCE_DOMINATES = 2.0;
    static final int SLOWER = 1;
    static final int UNDECIDED = 0;
    static final int CLEARLY_NOT = -1;

    private final LatencyPools pools;

    WindowVerdicts(LatencyPools pools) {
        this.pools = pools;
    }

    /** How much slower than the reference a window at {@code limit} may be: {@code 1 + 1/limit} (see above). */
    static double threshold(int limit) {
        return 1.0 + 1.0 / Math.max(1, limit);
    }

    /**
     * {@link #SLOWER}: clearly slower than the reference allows, by {@link #Z_SLOWER} standard errors (the window
     * is looked at every few samples; the stricter bound keeps the many looks from adding up to false alarms,
     * each of which would cost a cut); {@link #CLEARLY_NOT}: clearly not, by {@link #Z}; {@link #UNDECIDED}
     * otherwise. A window below its threshold but not clearly may still be clearly not slower by a second
     * opinion: the wider pool ({@link #clearlyBelowWide}) or the window's own limit ({@link #fasterThanOwnLimit}).
     *
     * @param w the window so far
     * @param closing whether the window closes now (its one last look) rather than being looked at on the way
     */
    int verdict(WindowedLimiter.Window w, boolean closing) {
        double[] reference = pools.reference(w.limit);
        double factor = threshold(w.limit);
        double threshold = reference[0] * factor;
        double windowError = LatencyPools.windowError(w, reference);
        double standardError = Math.sqrt(windowError * windowError + reference[1] * factor * reference[1] * factor);
        if (w.meanLatencyNanos - Z_SLOWER * standardError > threshold) {
            return SLOWER;
        }
        if (w.meanLatencyNanos + Z * standardError < threshold) {
            return CLEARLY_NOT;
        }
        return w.meanLatencyNanos < threshold && (clearlyBelowWide(w, reference, factor)
                || fasterThanOwnLimit(w, closing ? Z : Z_FASTER_ON_THE_WAY)) ? CLEARLY_NOT : UNDECIDED;
    }

    /**
     * Whether the window is clearly faster than what was learnt at its own limit, a pool of at least
     * {@link #OWN_POOL} samples: the resource became faster at the same concurrency, so its capacity rose. The
     * third opinion of a window below its threshold but undecided. After a capacity step from 10 to 30, the
     * limit had spent the last phase at 11, where thousands of calls had measured 22.4 ms (pooled: undecided,
     * not clearly slower); the first window at 11 after the step measured 19.6 ms, still undecided against a
     * reference of 20.2 ± 1.5 ms from 244 calls, and ran to its longest, and a re-measurement and one more such
     * window followed before the limit grew (4.0 s to settle; seed 10 4.9 s). On the way, when a window is
     * looked at every few samples, it takes {@link #Z_FASTER_ON_THE_WAY} standard errors (by 2.5 on the way and at the
     * close, the many looks added up to false alarms that lifted the limit above the capacity: {@code c20-noise} fell
     * by 0.2 points, a seed to 92.3%); at the window's close, its one last look, {@link #Z}. As with the wider pool,
     * the window's mean must also be below the reference's own threshold.
     */
    private boolean fasterThanOwnLimit(WindowedLimiter.Window w, double z) {
        double[] own = pools.at(w.limit);
        if (own[2] < OWN_POOL) {
            return false;
        }
        double windowError = LatencyPools.windowError(w, own);
        return w.meanLatencyNanos + z * Math.sqrt(windowError * windowError + own[1] * own[1]) < own[0];
    }

    /**
     * Whether the window is clearly (by {@link #Z} standard errors) below {@code 1 + 1/limit} times the pooled
     * latency of every limit below its own, a pool holding at least {@link #WIDE_POOL} times the reference's
     * samples: the second opinion of a window that is below its threshold but not clearly, because the
     * reference is thin. The reference pools only the limits up to four fifths of the window's, and after a
     * capacity step up those hold little (the limit spent the last phase above them): at a limit of 11 against
     * a capacity of 30, windows of 700 calls at the resource's 20 ms stayed undecided against a reference of
     * 18.9 ± 1.3 ms from 244 calls, and the limit took 2.6 to 9.4 s to settle. The wider pool is precise but may
     * be a little high (windows just below the limit, slightly slower, are in it), so it never decides alone: the
     * window's mean must also be below the reference's own threshold, which keeps the limit from creeping up on
     * it.
     */
    private boolean clearlyBelowWide(WindowedLimiter.Window w, double[] reference, double factor) {
        double[] wide = pools.below(w.limit);
        if (wide[2] < WIDE_POOL * reference[2]) {
            return false;
        }
        double windowError = LatencyPools.windowError(w, wide);
        double wideError = wide[1] * factor;
        return w.meanLatencyNanos + Z * Math.sqrt(windowError * windowError + wideError * wideError)
                < wide[0] * factor;
    }

    /**
     * The limit a slower window calls for: {@code limit / sqrt(slowdown)}, at least one below {@code limit}.
     * Only the part of the slowdown that is statistically certain counts: a window closes early when its mean is
     * extreme, so its point estimate overshoots; a cut on it alone would go too deep.
     */
    static double cut(WindowedLimiter.Window w, double limit, double reference) {
        double ratio = (w.meanLatencyNanos - Z * LatencyPools.windowError(w)) / reference;
        return Math.min(limit - 1, limit / Math.sqrt(Math.max(1.0, ratio)));
    }

    /**
     * Whether the window's mean is at most {@code 1 + 1/limit} times {@code pool}'s: a window at a lower limit
     * reads what the windows up to {@code limit} read (see {@code SelfTuningLimiter#restore} for why the point
     * estimate). A pool with nothing in it says nothing: false.
     *
     * @param pool what {@link LatencyPools#upTo} or {@link LatencyPools#between} returned
     * @param limit the limit the pool's windows ran up to
     */
    static boolean notAbove(WindowedLimiter.Window w, double[] pool, int limit) {
        return !Double.isNaN(pool[0]) && w.meanLatencyNanos <= pool[0] * threshold(limit);
    }

    /**
     * Whether the window's mean is clearly above a pinned measurement's mean times {@code 1 + 1/limit}, by
     * {@link #Z} standard errors of both (the window's own, not the reference-implied floor: the test is about
     * this window against one fresh measurement).
     *
     * @param probeMean the measurement's mean, NaN when there was none (then false)
     * @param probeError its standard error
     */
    static boolean aboveProbe(WindowedLimiter.Window w, double probeMean, double probeError) {
        if (Double.isNaN(probeMean)) {
            return false;
        }
        double factor = threshold(w.limit);
        double own = LatencyPools.windowError(w);
        double probe = probeError * factor;
        return w.meanLatencyNanos - Z * Math.sqrt(own * own + probe * probe) > probeMean * factor;
    }

    /**
     * Whether a pinned window's mean is clearly below another pinned measurement's, by {@link #Z_CHANGED} standard
     * errors of both: the earlier measurement was above the capacity (see {@code SelfTuningLimiter}'s check of
     * the first measurement).
     *
     * @param probeMean the earlier measurement's mean, NaN when there was none (then false)
     * @param probeError its standard error
     */
    static boolean belowProbe(WindowedLimiter.Window w, double probeMean, double probeError) {
        if (Double.isNaN(probeMean)) {
            return false;
        }
        double own = LatencyPools.windowError(w);
        return probeMean - w.meanLatencyNanos > Z_CHANGED * Math.sqrt(own * own + probeError * probeError);
    }

    /**
     * Whether the window dropped clearly more of its calls than the resource drops when it is not overloaded: a
     * drop is a sign of overload (a timeout, a refusal further down) unless the resource drops about as often at
     * lower limits, where the reference's windows ran. Some resources drop a steady share of calls whatever the
     * load (a slow tail past the caller's timeout: 1 call in 500 of a mixture whose 1% slow calls take 670 ms on
     * average, against a 1 s timeout); counting each such drop as overload cut the limit window after window to
     * half of the capacity and below. Until the reference has {@link #DROP_POOL} calls, or while it has seen no
     * drop at all, every drop counts, as it always did. Otherwise the window's drop share must exceed the
     * reference's by {@link #Z_SLOWER} standard errors of the difference of two shares (the window is looked at
     * every few samples, like the latency test).
     *
     * @param w the window so far
     */
    boolean dropsClearlyMore(WindowedLimiter.Window w) {
        if (w.drops == 0) {
            return false;
        }
        double[] reference = pools.reference(w.limit);
        double drops = reference[4];
        double calls = reference[5];
        if (calls < DROP_POOL) {
            return true;
        }
        double windowCalls = w.samples + w.drops;
        double pooled = (w.drops + drops) / (windowCalls + calls);
        double error = Math.sqrt(pooled * (1 - pooled) * (1 / windowCalls + 1 / calls));
        return w.drops / windowCalls - drops / calls > Z_SLOWER * error;
    }

    /** Whether the reference's standard error exceeds the window's by {@link #REFERENCE_DOMINATES} times. */
    boolean referenceDominates(WindowedLimiter.Window w) {
        double[] reference = pools.reference(w.limit);
        return reference[1] > REFERENCE_DOMINATES * LatencyPools.windowError(w, reference);
    }

    /**
     * Whether a pinned window's mean is clearly above the pooled reference (beyond {@link #Z_CHANGED} standard
     * errors).
     */
    boolean slowerThanReference(WindowedLimiter.Window w) {
        double[] reference = pools.reference(w.limit + 1);
        if (Double.isNaN(reference[0])) {
            return false;
        }
        double windowError = LatencyPools.windowError(w, reference);
        return w.meanLatencyNanos - reference[0] > Z_CHANGED * Math.sqrt(windowError * windowError
                + reference[1] * reference[1]);
    }

    /**
     * Whether a pinned window's mean is clearly below the pooled reference (beyond {@link #Z_CHANGED} standard
     * errors).
     */
    boolean differs(WindowedLimiter.Window w) {
        double[] reference = pools.reference(w.limit + 1);
        if (Double.isNaN(reference[0])) {
            return false;
        }
        double windowError = LatencyPools.windowError(w, reference);
        double error = Math.sqrt(windowError * windowError + reference[1] * reference[1]);
        // Only a faster probe replaces what was learnt: a slower one may itself be above a capacity that fell.
        return reference[0] - w.meanLatencyNanos > Z_CHANGED * error;
    }
}
