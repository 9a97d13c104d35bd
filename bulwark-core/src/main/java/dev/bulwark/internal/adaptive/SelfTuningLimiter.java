package dev.bulwark.internal.adaptive;

import dev.bulwark.SelfTuningLimit;
import java.util.SplittableRandom;

/**
 * The state of a {@link SelfTuningLimit}; its Javadoc states the algorithm for users, this comment the details.
 *
 * <p><b>The threshold and the tests.</b> A window is judged against {@code 1 + 1/limit} times the reference,
 * the pooled latency of the limits up to four fifths of it (or, while those hold few samples, of the limits below
 * or up to it; see {@link LatencyPools}); {@link WindowVerdicts} holds the tests and why the threshold is that.
 *
 * <p><b>Why sequential windows.</b> Telling {@code c} from {@code c + 1} apart takes about
 * {@code (2 c cv)^2} samples, {@code cv} being the latencies' coefficient of variation: 1,600 at {@code c = 20}
 * for exponential service times, four times that for lognormal ones with sigma 1. A fixed window is either too
 * short for noisy latencies (the limit drifts on noise) or too long for clear ones (a capacity drop is answered
 * late). The window therefore stops as soon as its tests (2, 2.5 or 3 standard errors, see {@link WindowVerdicts}) say
 * where its mean lies, and at {@link #MAX_SAMPLES} holds the limit when it cannot tell.
 *
 * <p><b>Phases.</b> {@code MEASURING} pins the limit low ({@code min(start, 4)}) for the first baseline, after
 * which slow start grows it from there; {@code PROBING} pins it at three quarters of the limit for one window
 * every 10 s (jittered; at limits below 4 less often, as costs 1% of the goodput: see {@link #probeInterval}),
 * or, to check whether the resource itself became slower ({@link #verifying}), at half of it, or at three
 * quarters first after a small slowdown ({@link #verifyingHigh}), or, to check the first measurement after slow
 * start's first step was slower ({@link #checkingFirst}), at half; {@code RUNNING} is the rest.
 *
 * <p><b>Re-measuring when the reference is what is unsure.</b> A window's verdict rests on two standard errors,
 * its own and the reference's. A reference learnt from few uncontended calls (or a first measurement that came
 * out low by chance) can keep windows undecided however long they run: seeds of {@code c40} held the limit at
 * 34 to 35 against a capacity of 40 for 40 s with 2,240-call windows measuring 20 ms against a reference of
 * 17.4 ms from 400 calls. Only more uncontended calls help, so such a window brings the next re-measurement
 * forward to 2 s after the last one began ({@code EARLY_PROBE_NANOS}).
 *
 * <p><b>Undoing the cut of a transient.</b> A window that closes during a pause of the resource reads ten times
 * the reference and cuts the limit to a third; the reference at the lower limit, learnt from few calls, then kept
 * windows reading the resource's normal latency undecided, and the limit far below the capacity. A cut on a
 * slowdown of {@link #TRANSIENT_SLOWDOWN} or more therefore remembers the limit before it ({@link #transientLimit}),
 * and {@link #restore} brings it back once a window at the lower limit reads what the windows near it read before.
 *
 * <p><b>Invariant (the limit).</b> {@link #decide} returns NaN only when it has nothing to compare with, and
 * {@link WindowedLimiter} keeps the limit then, so the limit always stays within {@code [minLimit, maxLimit]}
 * (never 0, which would admit nothing and therefore never produce the samples to recover).
 *
 * <p>Only the window's closer runs this code (see
 * {@link WindowedLimiter}), so its fields need no synchronization beyond the closer's flag; {@link #countFrom}
 * is read on the per-call path and is therefore volatile.
 */
final class SelfTuningLimiter extends WindowedLimiter {

    private static final int UNDECIDED = WindowVerdicts.UNDECIDED;
    private static final int CLEARLY_NOT = WindowVerdicts.CLEARLY_NOT;
    private static final int BASELINE_SAMPLES = 128;
    /**
     * The first measurement's size: half a probe's. At the pinned limit of 4 the first measurement runs at a
     * fifth of a capacity of 20, so its length is most of the ramp-up's cost; slow start's windows and the early
     * re-measurements ({@link #EARLY_PROBE_NANOS}) refine what it starts with.
     */
    private static final int FIRST_SAMPLES = 64;
    private static final int PINNED_LIMIT = 4;
    private static final int MAX_SAMPLES = 4_000;
    private static final long CEILING_HOLD_NANOS = 1_500_000_000L;
    private static final long PROBE_INTERVAL_NANOS = 10_000_000_000L;
    /** The share of the goodput a periodic re-measurement may cost: see {@link #probeInterval}. */
    private static final double PROBE_COST_SHARE = 0.01;
    private static final long MAX_PROBE_INTERVAL_NANOS = 60_000_000_000L;
    /**
     * When the reference's own uncertainty, not the window's, keeps a verdict open (its standard error more than
     * {@link WindowVerdicts#REFERENCE_DOMINATES} times the window's), the next re-measurement comes this soon
     * after the last one began instead of after {@link #PROBE_INTERVAL_NANOS}: a window cannot become clearer by
     * running longer, only the reference can, by more uncontended samples.
     */
    private static final long EARLY_PROBE_NANOS = 2_000_000_000L;
    /**
     * A limit grown, clearly not slower, to this multiple of the last limit found slower means the capacity rose:
     * see {@link #forgetNearOldCeiling}.
     */
    private static final double CAPACITY_ROSE = 2.0;
    /** A slowdown at least this big may be a capacity that halved: the check then probes at half the limit. */
    private static final double BIG_SLOWDOWN = 1.5;
    /**
     * A cut on a window at least this much slower than the reference (its point estimate) remembers the limit
     * before it: see {@link #transientLimit}. One call too many slows calls by about {@code 1 + 2/limit}, and a
     * limit grown by half (slow start's step, excluded anyway, or the largest growth step) by 2.25: a slowdown of
     * 3 is the resource's, or a capacity that fell by more than two fifths.
     */
    static final double TRANSIENT_SLOWDOWN = 3.0;
    /** How long a remembered limit may be restored after its cut: a pause or a slow period is short. */
    static final long TRANSIENT_NANOS = 5_000_000_000L;
    /**
     * What the windows before a transient read at the remembered limit: the pool of the limits from this share of
     * it up to it (where the limit ran before), or of every limit up to it while those hold fewer than
     * {@link #BEFORE_POOL} samples.
     */
    private static final double NEAR_SHARE = 0.8;
    private static final int BEFORE_POOL = 64;

    private enum Phase { MEASURING, PROBING, RUNNING }

    private final int windowSamples;
    private final SplittableRandom jitter = new SplittableRandom(0x5EED_AD47L);
    /**
     * Calls that end before this ticker reading are left out: the transition after a limit change. Counting
     * only calls admitted after the change would be worse: the first of them to end are the short ones, so such
     * a window is biased fast. Calls ending from three baselines after the change on are a stationary sample of
     * the new limit's latencies (all but a few of the calls admitted before it have ended).
     */
    private volatile long countFrom = Long.MIN_VALUE;
    /**
     * Calls admitted before this ticker reading (the last limit change) are left out too: after a cut, a call
     * admitted under the new limit was admitted only once the calls in flight had fallen below it, so it never
     * shares the resource with more than the new limit's worth of calls, while a call admitted before the change
     * spent part of its life among the drain (after a cut from 23 to 11 such calls made a probe 20% slower than
     * the resource, and the probe's result became the reference). The end-time rule above keeps the early close
     * of a window from favouring the short calls among them.
     */
    private volatile long startedFrom = Long.MIN_VALUE;

    // Closer only.
    private Phase phase = Phase.MEASURING;
    private double resumeLimit;
    /**
     * What was learnt on each scale, arithmetic and geometric means, and the tests over it: both always learn,
     * and each window is judged on the one whose latencies are steadier (see {@link #judge}).
     */
    private final LatencyPools arithmeticPools = new LatencyPools(false);
    private final LatencyPools geometricPools = new LatencyPools(true);
    private final WindowVerdicts arithmeticVerdicts = new WindowVerdicts(arithmeticPools);
    private final WindowVerdicts geometricVerdicts = new WindowVerdicts(geometricPools);
    /** The scale the current window is judged on; set by {@link #judge}. */
    private boolean judgedGeometric;
    private LatencyPools pools = arithmeticPools;
    private WindowVerdicts verdicts = arithmeticVerdicts;
    private int lastLimit;
    /** The limit last found slower, and when: growth back into it waits {@link #CEILING_HOLD_NANOS}. */
    private int ceilingLimit = Integer.MAX_VALUE;
    private long ceilingAt;
    private boolean slowStart = true;
    private double growthStep = 1.0;
    /** The last slower window's mean on each scale (arithmetic, geometric). */
    private final double[] lastSlowMeans = {Double.NaN, Double.NaN};
    private int lastSlowLimit;
    private long nextProbeAt;
    /** When the last re-measurement (periodic or a check) began: early ones wait {@link #EARLY_PROBE_NANOS}. */
    private long probeStartedAt;
    /**
     * Mean and standard error of the last pinned measurement (first, periodic or check), on each scale
     * (arithmetic, geometric): the freshest evidence.
     */
    private final double[] lastProbeMeans = {Double.NaN, Double.NaN};
    private final double[] lastProbeErrors = new double[2];
    /** The current probe checks whether the resource itself became slower (see {@link #slower}). */
    private boolean verifying;
    /** The current check probes at three quarters, and goes on to half if that is slower too. */
    private boolean verifyingHigh;
    /** A hand change ended the first measurement before it learnt anything (see {@link #changedByHand}). */
    private boolean unreferenced;
    /**
     * The limit before a cut on a slowdown of {@link #TRANSIENT_SLOWDOWN} or more, 0 when none: such a cut may
     * have answered a pause or a slow period of the resource rather than too many calls, and is undone as soon
     * as a window at the lower limit reads the latencies the limits up to this one read before it (see
     * {@link #restore}).
     */
    private int transientLimit;
    private long transientAt;
    /** The ceiling the transient's cut replaced (its slowdown says nothing about the capacity). */
    private int transientCeiling = Integer.MAX_VALUE;
    private long transientCeilingAt;
    /**
     * A restoring step was taken and no window since has been judged at the restored level: a slower window now
     * says the cut was about the capacity after all, and remembers nothing.
     */
    private boolean restoring;
    /** The window being judged is the first after the first measurement: slow start's first step. */
    private boolean afterFirstMeasurement;
    /**
     * The current probe checks the first measurement, after slow start's first step was slower: a result
     * clearly faster than it replaces what was learnt, and the limit resumes at the probe's.
     */
    private boolean checkingFirst;

    SelfTuningLimiter(SelfTuningLimit config, int initialLimit) {
        super(config, initialLimit, true);
        this.windowSamples = config.windowSamples();
        this.resumeLimit = initialLimit;
    }

    /**
     * How long until the next periodic re-measurement, before jitter: {@link #PROBE_INTERVAL_NANOS}, or, below the
     * first measurement's pinned limit of 4, where a re-measurement at three quarters of the limit pins 1 or 2
     * calls, as long as keeps its cost to {@link #PROBE_COST_SHARE} of the goodput (at most
     * {@link #MAX_PROBE_INTERVAL_NANOS}). Its cost is the share of the limit it gives up
     * ({@code (limit - p) / limit} at the pinned {@code p}) for as long as its calls take ({@code max(128, 8 p)}
     * of them, {@code p} at a time, at the reference's latency): at a limit of 2 a re-measurement at 1 halves the
     * goodput for two and a half seconds (20 ms calls), and every 10 s that cost {@code grid-c2} (capacity 2) a
     * tenth of its goodput. From 4 up it costs less (for 20 ms calls about 2% at 4, 0.4% at 20), and there
     * the reference may still have been learnt above a small capacity: stretched by a cost computed from it
     * (55 ms of a 20 ms resource at 4 against a capacity of 2), the interval passed the end of the run, and the
     * re-measurement that would have corrected the reference never came.
     */
    private double probeInterval(double limit) {
        double reference = baseline();
        double pinned = periodicProbeLimit(limit);
        if (Double.isNaN(reference) || limit >= PINNED_LIMIT || pinned >= limit) {
            return PROBE_INTERVAL_NANOS;
        }
        double duration = Math.max(BASELINE_SAMPLES, 8 * pinned) * reference / pinned;
        double cost = duration * (limit - pinned) / limit;
        return Math.min(MAX_PROBE_INTERVAL_NANOS, Math.max(PROBE_INTERVAL_NANOS, cost / PROBE_COST_SHARE));
    }

    /** Where a periodic re-measurement pins the limit: three quarters of it, never below {@code minLimit}. */
    private double periodicProbeLimit(double limit) {
        return Math.max(minLimit, Math.floor(limit * 0.75));
    }

    private int pinned(double limit) {
        return pinned(minLimit, maxLimit, limit);
    }

    private static int pinned(int minLimit, int maxLimit, double limit) {
        return (int) Math.max(minLimit, Math.min(Math.min(limit, PINNED_LIMIT), maxLimit));
    }

    /**
     * The limit a bulkhead with this configuration starts at: the pinned one of the first measurement.
     *
     * @param config the configuration
     * @param configured the bulkhead's configured limit, where the limit resumes after the measurement
     * @return {@code min(configured, 4)}, within the configuration's range
     */
    static int pinnedStart(SelfTuningLimit config, int configured) {
        return pinned(config.minLimit(), config.maxLimit(), configured);
    }

    @Override
    boolean accepts(long endedAt, long latencyNanos) {
        long from = countFrom;
        if (from != Long.MIN_VALUE && endedAt - from < 0) {
            return false;
        }
        long started = startedFrom;
        // An untimed drop has no start: it counts (drops always do once the transition has passed).
        return started == Long.MIN_VALUE || latencyNanos == Long.MIN_VALUE || endedAt - latencyNanos - started >= 0;
    }

    @Override
    int checkEvery(int limit) {
        return Math.max(8, limit / 4);
    }

    /** The pooled latency of windows at limits below {@code limit} that were not slower: the reference. */
    private double baseline() {
        return reference(lastLimit)[0];
    }

    private double[] reference(int limit) {
        return pools.reference(limit);
    }

    /**
     * Chooses the scale {@code w} is judged on: the geometric mean when the logarithms of every latency learnt so
     * far (all limits pooled, for the steadiest estimate) spread less than the latencies do relative to their
     * mean (heavy tails: lognormal, Pareto, fast/slow mixtures), the arithmetic mean otherwise (exponential and
     * lighter tails, where the arithmetic mean is the steadier of the two). Both detect the same slowdown: a
     * resource that slows every call by a factor moves both means by it. For heavy tails the arithmetic mean of
     * a few hundred calls is not only unsteady but mostly low (most such samples miss the rare slow calls that
     * carry the mean), so a reference learnt from few calls sat below what longer windows measured, and held the
     * limit at half the capacity (a mixture with 10% of calls 50 times slower: 56% of the oracle's goodput, one
     * seed 22%). The choice depends only on the pools, which change when a window closes, so it holds for a whole
     * window.
     */
    private void judge(Window w) {
        double geometricSpread = geometricPools.all()[3];
        double arithmeticSpread = arithmeticPools.all()[3];
        judgedGeometric = geometricSpread < arithmeticSpread;
        pools = judgedGeometric ? geometricPools : arithmeticPools;
        verdicts = judgedGeometric ? geometricVerdicts : arithmeticVerdicts;
        w.judgeBy(judgedGeometric);
    }

    private int scale() {
        return judgedGeometric ? 1 : 0;
    }

    @Override
    boolean complete(Window w, long seen) {
        judge(w);
        if (seen >= Math.min(MAX_SAMPLES, Math.max(400, 64L * w.limit))) {
            return true;
        }
        if (phase == Phase.MEASURING && w.limit != pinned(resumeLimit)) {
            return true; // the bulkhead starts at its configured limit: pin it at the first check
        }
        if (phase != Phase.RUNNING) {
            int needed = phase == Phase.MEASURING ? FIRST_SAMPLES : BASELINE_SAMPLES;
            return w.samples >= Math.max(needed, 8L * w.limit)
                    || w.drops > 0 && w.samples >= Math.min(windowSamples, w.limit);
        }
        if (seen < Math.max(windowSamples, w.limit)) {
            return false;
        }
        if (Double.isNaN(w.meanLatencyNanos) || unreferenced || verdicts.dropsClearlyMore(w)) {
            return true; // nothing learnt, or overload said by drops: no verdict to wait for (see changedByHand)
        }
        if (restorable(w)) {
            return true; // the transient has passed: no verdict to wait for (see restore)
        }
        int verdict = verdicts.verdict(w, false);
        // Slow start looks once, at a fixed size: its windows feed the reference, and closing early on "slower" (which
        // is not pooled) at every look pooled mostly the chance-fast windows (15 ms of a 20 ms resource), a
        // reference biased low that later held the limit well below the capacity.
        return slowStart ? seen >= 2L * Math.max(windowSamples, w.limit) : verdict != UNDECIDED;
    }

    /**
     * A hand change (see {@link WindowedLimiter#changedByHand}) during the first measurement or a re-measurement
     * ends it: the limit is where the caller put it, and pinning it back (as the measurement would) would undo
     * the change. The in-process bulkhead's own start at the pinned limit is no hand change. If nothing has been
     * learnt yet (the first measurement had not finished), the limit holds at the new value, drops still cutting
     * it, and the re-measurement at three quarters of it that gives the algorithm its reference comes
     * {@link #EARLY_PROBE_NANOS} later; otherwise the periodic schedule goes on. A change while running needs
     * nothing: the algorithm continues from the new value, as every algorithm does.
     */
    @Override
    void changedByHand(Window w) {
        if (phase == Phase.RUNNING || phase == Phase.MEASURING && w.limit == pinned(resumeLimit)) {
            return;
        }
        if (phase == Phase.MEASURING) {
            slowStart = false; // the caller chose a level: growth from it takes the running steps
        }
        phase = Phase.RUNNING;
        verifying = false;
        verifyingHigh = false;
        checkingFirst = false;
        transientLimit = 0;
        restoring = false;
        resumeLimit = w.limit;
        probeStartedAt = w.closedAt;
        unreferenced = Double.isNaN(reference(w.limit + 1)[0]);
        nextProbeAt = w.closedAt + (unreferenced ? EARLY_PROBE_NANOS
                : (long) (probeInterval(w.limit) * (0.8 + 0.4 * jitter.nextDouble())));
    }

    @Override
    double decide(Window w) {
        judge(w);
        Phase before = phase;
        double next = decideInPhase(w);
        afterFirstMeasurement = before == Phase.MEASURING && phase == Phase.RUNNING;
        if (clamp(next) != w.limit) {
            // The calls in flight now have latencies like this window's: wait three of those (or of the
            // baseline, if longer) for them to end.
            double base = baseline();
            double typical = Math.max(Double.isNaN(base) ? 0.0 : base,
                    Double.isNaN(w.arithmeticMeanNanos) ? 0.0 : w.arithmeticMeanNanos);
            // A probe also leaves out the calls admitted before it (see startedFrom), and then waits five typical
            // latencies rather than three: among calls admitted after a change, those ending soon after it are
            // the short ones (a window of them measured a 20 ms resource at 18 ms and held the limit below the
            // capacity); five typical latencies leave out all but under 1% of exponential latencies.
            boolean probe = phase == Phase.PROBING;
            double transition = (probe ? 5.0 : 3.0) * typical;
            countFrom = w.closedAt + (long) Math.min(transition, 1e10);
            startedFrom = probe ? w.closedAt : Long.MIN_VALUE;
        }
        return next;
    }

    private double decideInPhase(Window w) {
        double limit = estimatedLimit;
        lastLimit = w.limit;
        arithmeticPools.forgetSlowly(w.closedAt);
        geometricPools.forgetSlowly(w.closedAt);
        if (phase == Phase.MEASURING && w.limit != pinned(resumeLimit)) {
            return pinned(resumeLimit);
        }
        if (phase == Phase.MEASURING || phase == Phase.PROBING) {
            if (w.maxInFlight > w.limit) {
                return limit; // calls admitted under the earlier, higher limit were still running: measure again
            }
            if (!Double.isNaN(w.meanLatencyNanos)) {
                if (phase == Phase.PROBING && verifyingHigh && verdicts.slowerThanReference(w)) {
                    // Slower at three quarters: the resource became slower, or its capacity fell below even
                    // that level. Only a probe at half the limit can tell; until then nothing changes.
                    verifyingHigh = false;
                    return Math.max(minLimit, Math.floor(resumeLimit * 0.5));
                }
                if (checkingFirst
                        && WindowVerdicts.belowProbe(w, lastProbeMeans[scale()], lastProbeErrors[scale()])) {
                    // The first measurement was above the capacity: forget it, and grow from here.
                    arithmeticPools.clear();
                    geometricPools.clear();
                    resumeLimit = w.limit;
                }
                if (phase == Phase.PROBING
                        && (verdicts.differs(w) || verifying && verdicts.slowerThanReference(w))) {
                    // The resource changed: what was learnt at other limits no longer holds, nor what a
                    // remembered limit would be restored against.
                    arithmeticPools.clear();
                    geometricPools.clear();
                    transientLimit = 0;
                }
                pool(w);
                unreferenced = false;
                for (int scale = 0; scale < 2; scale++) {
                    w.judgeBy(scale == 1);
                    lastProbeMeans[scale] = w.meanLatencyNanos;
                    lastProbeErrors[scale] = LatencyPools.windowError(w);
                }
                w.judgeBy(judgedGeometric);
            }
            if (Double.isNaN(reference(w.limit + 1)[0])) {
                return limit; // only drops so far: keep measuring
            }
            checkingFirst = false;
            boolean first = phase == Phase.MEASURING;
            if (first) {
                probeStartedAt = w.closedAt;
            }
            phase = Phase.RUNNING;
            verifying = false;
            nextProbeAt = w.closedAt + (long) (probeInterval(first ? w.limit : resumeLimit)
                    * (0.8 + 0.4 * jitter.nextDouble()));
            // After the first measurement, a start above the pinned limit is reached by slow start from there:
            // jumping to a start far above the capacity would flood the resource and poison the next windows
            // with the drain of calls admitted under it. The measurement is slow start's first window: if the
            // pinned limit was in use and nothing dropped, it grows at once (one more window at the pinned limit
            // cost a fifth of a second at a fifth of the oracle's goodput: 0.4 points of c20-start20's whole run,
            // mean of seeds 1 to 20).
            if (first) {
                return w.maxInFlight >= w.limit && w.drops == 0 ? Math.max(limit + 1, limit * 1.5) : w.limit;
            }
            return resumeLimit;
        }
        if (!Double.isNaN(w.meanLatencyNanos) && !verdicts.dropsClearlyMore(w) && restorable(w)) {
            return restore(w, limit);
        }
        if (w.closedAt - nextProbeAt >= 0 && !slowStart) {
            probeStartedAt = w.closedAt;
            phase = Phase.PROBING;
            resumeLimit = limit;
            return periodicProbeLimit(limit);
        }
        if (w.drops == 0 && unreferenced) {
            return limit; // a hand change ended the first measurement: hold until the re-measurement
        }
        int verdict = Double.isNaN(w.meanLatencyNanos) || verdicts.dropsClearlyMore(w) ? 1 : verdicts.verdict(w, true);
        if (verdict > 0) {
            return slower(w, limit);
        }
        restoring = false; // a window at the restored level was not slower: the cut was the transient's
        if (verdict < 0) {
            forgetLastSlow(); // only a clearly faster window ends a run of slower ones
        }
        if (verdict == UNDECIDED && verdicts.referenceDominates(w)
                && probeStartedAt + EARLY_PROBE_NANOS - nextProbeAt < 0) {
            nextProbeAt = probeStartedAt + EARLY_PROBE_NANOS; // measure the reference again soon
        }
        if (verdict == CLEARLY_NOT && !slowStart && ceilingLimit != Integer.MAX_VALUE
                && w.limit >= CAPACITY_ROSE * ceilingLimit && w.maxInFlight >= w.limit) {
            forgetNearOldCeiling(w);
        }
        // An undecided window clearly slower than the last pinned measurement allows is not pooled: it was above
        // the capacity, and pooled it raised the reference of every limit above it (after a capacity step from 10
        // to 30 the limit then sat at 37 to 38). Judged against the last measurement rather than the pooled
        // reference, so that a reference learnt low cannot keep out the windows that would correct it.
        int scale = scale();
        if (verdict == CLEARLY_NOT || !WindowVerdicts.aboveProbe(w, lastProbeMeans[scale], lastProbeErrors[scale])) {
            pool(w);
        }
        if (w.maxInFlight < w.limit) {
            return limit; // not limited by the limit: no evidence that more would be fine
        }
        if (slowStart) {
            return Math.max(limit + 1, limit * 1.5);
        }
        if (w.limit + 1 >= ceilingLimit && w.closedAt - ceilingAt < CEILING_HOLD_NANOS) {
            return limit; // one above was slower a moment ago: stay at the capacity found
        }
        if (verdict == UNDECIDED) {
            return undecided(w, limit);
        }
        double step = growthStep;
        growthStep = Math.min(growthStep * 2, Math.max(1.0, limit / 2));
        return limit + step;
    }

    /**
     * A window that ran to its longest without a clear verdict decides by its point estimate: below the threshold
     * it grows by the current step (which then doubles, up to half the limit), otherwise it holds and the step
     * goes back to 1. Holding on every undecided window let the limit only fall: false
     * "slower" verdicts on heavy-tailed noise cut it, and the "clearly not slower" that growth needed could not
     * be had at a limit whose threshold is as close as {@code 1 / limit} (lognormal service drifted from 21 to
     * 16), and after a capacity step up it grew by one per several seconds.
     */
    private double undecided(Window w, double limit) {
        double threshold = reference(w.limit)[0] * WindowVerdicts.threshold(w.limit);
        if (w.meanLatencyNanos >= threshold) {
            growthStep = 1.0;
            return limit;
        }
        double step = growthStep;
        growthStep = Math.min(growthStep * 2, Math.max(1.0, limit / 2));
        return limit + step;
    }

    private double slower(Window w, double limit) {
        boolean wasSlowStart = slowStart;
        slowStart = false;
        growthStep = 1.0;
        boolean afterRestore = restoring;
        restoring = false;
        if (afterRestore) {
            transientLimit = 0; // slower at the restored level: the cut was about the capacity after all
        }
        double mean = w.meanLatencyNanos;
        double lastSlowMean = lastSlowMeans[scale()];
        if (Double.isNaN(mean)) {
            forgetLastSlow();
            return limit * 0.8; // only drops: the resource said so
        }
        double reference = reference(w.limit)[0];
        if (!afterRestore && !wasSlowStart && !Double.isNaN(reference)
                && mean >= TRANSIENT_SLOWDOWN * reference) {
            rememberTransient(w);
        }
        if (!Double.isNaN(lastSlowMean) && w.limit < lastSlowLimit && mean >= 0.97 * lastSlowMean
                && w.drops == 0 && w.maxInFlight <= w.limit) {
            // Cut, and calls did not get faster: either the resource itself became slower, or calls admitted
            // under the higher limit (or given up by their callers but still worked on) are still draining. Only
            // a measurement at a pinned low concurrency can tell: probe now, and follow the resource only if the
            // probe is clearly slower than what was learnt. Pinned at half the limit: a capacity that halved is
            // still overloaded at three quarters of it (the periodic probe's level), and that probe would make
            // the overloaded latency the normal one. After a slowdown short of 1.5 it first probes at three
            // quarters, which costs half as much (two small cuts in a row near the capacity are common, and sent
            // the limit to half every few seconds), and goes on to half only if that probe is slower too: a
            // window straddling a capacity step can show a small slowdown while the capacity halved, and a probe
            // at three quarters of such a limit, taken for the resource's new normal, held the limit at 1.7 times
            // the new capacity.
            forgetLastSlow();
            phase = Phase.PROBING;
            probeStartedAt = w.closedAt;
            verifying = true;
            double learnt = reference(w.limit)[0];
            // If the check finds the resource unchanged, the slowdown was ours: resume at the cut this window
            // calls for, not at the limit it was found slower at (resuming there sent the limit back above the
            // capacity, to be found slower and checked again: after the step from 10 to 30 it sat at 34 to 42).
            resumeLimit = Double.isNaN(learnt) ? limit : WindowVerdicts.cut(w, limit, learnt);
            boolean big = Double.isNaN(learnt) || mean >= BIG_SLOWDOWN * learnt;
            verifyingHigh = !big;
            return Math.max(minLimit, Math.floor(limit * (big ? 0.5 : 0.75)));
        }
        lastSlowMeans[0] = w.arithmeticMeanNanos;
        lastSlowMeans[1] = w.geometricMeanNanos;
        lastSlowLimit = w.limit;
        ceilingLimit = w.limit;
        ceilingAt = w.closedAt;
        if (Double.isNaN(reference)) {
            return limit - 1; // nothing learnt to compare with (pools just cleared): the smallest cut
        }
        double cut = WindowVerdicts.cut(w, limit, reference);
        if (afterFirstMeasurement) {
            // Slower already at slow start's first step: the capacity is near or below the first measurement's
            // pinned limit, which may then have measured an overloaded resource (grid-c2: 50 ms of a 20 ms
            // resource at 4 against a capacity of 2), a reference that held the limit at twice the capacity
            // until the first periodic re-measurement. Check at half the cut: the pooled reference holds nothing
            // below the first measurement's limit, so the check's result is compared with that measurement itself
            // (WindowVerdicts.belowProbe).
            phase = Phase.PROBING;
            checkingFirst = true;
            probeStartedAt = w.closedAt;
            resumeLimit = cut;
            return Math.max(minLimit, Math.floor(cut * 0.5));
        }
        return cut;
    }

    /**
     * Remembers the limit before a cut on a slowdown of {@link #TRANSIENT_SLOWDOWN} or more (see
     * {@link #restore}). A second such cut while the first is remembered keeps the higher limit.
     */
    private void rememberTransient(Window w) {
        if (transientLimit != 0 && w.closedAt - transientAt < TRANSIENT_NANOS) {
            transientLimit = Math.max(transientLimit, w.limit);
        } else {
            transientLimit = w.limit;
            transientCeiling = ceilingLimit;
            transientCeilingAt = ceilingAt;
        }
        transientAt = w.closedAt;
    }

    /**
     * Whether {@code w}, below a remembered limit and within {@link #TRANSIENT_NANOS} of its cut, reads no more
     * than {@code 1 + 1/limit} times what the windows near the remembered limit read before the cut (the limits
     * from {@link #NEAR_SHARE} of it up to it, or all up to it while those hold few samples): the resource is
     * back to what it was. Those windows are a larger sample than the reference of the lower limit (after a cut
     * from 23 to 8, 1,000 and more calls against about 100 learnt at low limits), and a window at a lower limit
     * reads no more than they did unless the resource is still slower or its capacity fell below the lower limit.
     */
    private boolean restorable(Window w) {
        if (transientLimit <= w.limit || w.closedAt - transientAt >= TRANSIENT_NANOS) {
            return false;
        }
        double[] before = pools.between((int) Math.ceil(NEAR_SHARE * transientLimit), transientLimit);
        if (before[2] < BEFORE_POOL) {
            before = pools.below(transientLimit + 1);
        }
        return WindowVerdicts.notAbove(w, before, transientLimit);
    }

    /**
     * Undoes a cut on a large slowdown once a window at the lower limit reads the latencies of before it
     * ({@link #restorable}): the slowdown was the resource's (a pause, a slow period), not too many calls. Two
     * steps: first to the geometric mean of the window's limit and the remembered one, then, when a window there
     * reads the same, to the remembered one. A window slower at a restored level says the cut was about the
     * capacity after all (a capacity that fell to a quarter reads, at the moment of the cut, just like a pause),
     * and is answered by the usual cut, remembering nothing; the half-way step halves what such a test costs
     * (a window at twice a capacity that fell 80 to 20, not four times). The test is the point estimate, looked
     * at every few samples: it only decides whether to try a higher limit, whose windows are then judged as
     * usual. A test by standard errors ("not clearly above") passed windows 2.5 times the reference on a
     * fast/slow mixture, whose few dozen calls spread widely.
     */
    private double restore(Window w, double limit) {
        int verdict = verdicts.verdict(w, true);
        int scale = scale();
        if (verdict == CLEARLY_NOT || verdict == UNDECIDED
                && !WindowVerdicts.aboveProbe(w, lastProbeMeans[scale], lastProbeErrors[scale])) {
            pool(w);
        }
        forgetLastSlow();
        growthStep = 1.0;
        int target = transientLimit;
        double next = target;
        if (!restoring) {
            next = Math.max(limit + 1, Math.sqrt(w.limit * (double) target));
        }
        restoring = true;
        if (next >= target) {
            transientLimit = 0;
            ceilingLimit = transientCeiling;
            ceilingAt = transientCeilingAt;
        }
        return Math.min(next, target);
    }

    /**
     * The capacity rose (the limit grew, clearly not slower, to {@link #CAPACITY_ROSE} times the last limit found
     * slower): forgets what was learnt from three quarters of that old ceiling up. Those windows ran near or
     * above the old capacity, a little slower than the resource, and were pooled as undecided; kept, they raised
     * the reference of every higher limit (to about 22 ms for a 20 ms resource after a step from 10 to 30), so the
     * limit stopped at 35 to 38 instead of about 31. What was learnt below that stays: it was uncontended then
     * and is now.
     */
    private void forgetNearOldCeiling(Window w) {
        arithmeticPools.clear((int) Math.floor(0.75 * ceilingLimit), w.limit - 1);
        geometricPools.clear((int) Math.floor(0.75 * ceilingLimit), w.limit - 1);
        ceilingLimit = Integer.MAX_VALUE;
    }

    private void forgetLastSlow() {
        lastSlowMeans[0] = Double.NaN;
        lastSlowMeans[1] = Double.NaN;
    }

    private void pool(Window w) {
        if (Double.isNaN(w.arithmeticMeanNanos) || w.samples == 0) {
            return;
        }
        arithmeticPools.add(w.limit, w.arithmeticMeanNanos, w.arithmeticVarianceNanos2, w.samples, w.drops);
        geometricPools.add(w.limit, w.geometricMeanNanos, w.geometricVarianceNanos2, w.samples, w.drops);
    }
}
