package dev.bulwark;

/**
 * The adaptive limit that needs no tuning: made by {@link AdaptiveLimit#selfTuning()}, it needs to know neither
 * the resource's service time, nor its capacity, nor a latency threshold. Immutable.
 *
 * <h2>The algorithm</h2>
 * <p>It keeps the limit where one more call in flight would start to slow every call down:
 * <ol>
 *   <li><b>Baseline.</b> It first measures the resource's latency without contention, at a pinned concurrency of
 *       {@code min(starting limit, 4)} (never below {@code minLimit}; the bulkhead's {@code maxConcurrency()} reads
 *       it from the moment the bulkhead is built) for at least 64 calls, so that a start far
 *       above the capacity cannot make the overloaded latency the normal one (Envoy's adaptive concurrency
 *       filter does the same), and then grows from there by slow start, at once if the pinned limit was in use
 *       and nothing dropped (a start far above the capacity is not jumped back to: the flood and its drain would
 *       poison the next windows). If slow start's first step is already slower, the capacity is near or below
 *       the pinned limit, which may have measured an overloaded resource: it measures again at once, at half the
 *       limit that step's cut calls for, and a result faster than the first measurement by three standard errors
 *       replaces it, the limit then growing from that half. Afterwards the reference for a
 *       limit is the pooled latency of the windows at or below four fifths of it that were not judged slower
 *       (so that slightly slow windows just below the limit cannot inflate it and let the limit creep up), more
 *       precise the longer it runs; a window that ran undecided while clearly slower than the last pinned
 *       measurement allows is not pooled (it was above the capacity), and once the limit has grown, clearly not
 *       slower, to twice the last limit found slower (the capacity rose), what was learnt from three quarters of
 *       that old limit up is forgotten (it ran near the old capacity). Every 10 s (±20%, jittered so that many
 *       bulkheads do not re-measure together) it measures again for a moment at three quarters of the limit
 *       (at least 128 calls, and 8 per slot of the pinned limit), counting only calls admitted after it began
 *       (below a limit of 4, where it pins 1 or 2 calls and gives up a third to a half of the goodput for
 *       seconds, less often: no more often than costs 1% of the goodput, and at least once a minute; for a
 *       resource answering in 20 ms about every 43 s at 3 and every 60 s at 2), and a result faster by three
 *       standard errors replaces what was learnt (BBR's ProbeRTT); it measures again after
 *       2 s already when the reference's uncertainty (more than twice the window's) is what keeps a window undecided.
 *       What was learnt is halved in weight every 30 s.</li>
 *   <li><b>Sequential windows.</b> A window holds at least a round trip of calls (calls ending within three
 *       typical latencies of a limit change are left out: the transition), and closes as soon as its mean
 *       latency (arithmetic, or geometric when the latencies are heavy-tailed: the geometric mean, the
 *       exponential of the logarithms' mean, is chosen for a window when the logarithms of all the latencies
 *       learnt so far spread less than the latencies do relative to their mean, as for lognormal or Pareto
 *       latencies or a mix of fast and much slower calls; both means move by the same factor when the resource
 *       slows every call down, and the arithmetic mean of a few hundred heavy-tailed calls is unsteady and mostly
 *       low) is <em>statistically</em>
 *       clear to be above (by 2.5 standard errors, from the window's and the reference's variance: the window is
 *       looked at every few samples, and the stricter bound keeps the many looks from adding up to false alarms)
 *       or below (by 2) the reference plus half the slowdown one more call
 *       would cause ({@code 1 + 1 / limit}): a big change is answered within a round trip, a marginal one after
 *       as many samples as the noise of the latencies demands (heavy-tailed latencies simply take longer), and
 *       one still undecided after 64 round trips' worth of calls (at most 4,000) decides by its mean: below
 *       the threshold the limit grows by the current step (1, doubling with every further growth, up to half the
 *       limit), otherwise it holds and the step goes back to 1. A window below the threshold but
 *       not clearly, because the reference rests on few calls (after a capacity step up the limits up to four
 *       fifths of the window's hold little), is also clearly not slower when it is clearly below
 *       {@code 1 + 1 / limit} times the pooled latency of every limit below its own, if that pool holds at least
 *       four times the reference's calls, or when it is clearly faster (by 3 standard errors while it runs, by 2
 *       when it closes) than the pool of its own limit, if that holds at least 1,000 calls: the resource became
 *       faster at the same concurrency, so its capacity rose.</li>
 *   <li><b>Moves.</b> Clearly slower: the limit falls to {@code limit / sqrt(slowdown)} (at least by one), where
 *       the slowdown of a processor-sharing resource that thrashes says the capacity lies; the slowdown counted
 *       is only its statistically certain part (the window's mean less two standard errors, over the
 *       reference), because a window that closes early does so on an extreme mean. Clearly not slower, with the
 *       limit in use: it grows, by half before the first back-off (slow start), then by one, doubling with every
 *       further such window (up to half the limit), so it probes gently at the capacity it found and quickly
 *       once capacity has clearly grown; for 1.5 s after a limit was found slower it does not grow back into
 *       it. A drop (by default a timeout or a refusal further down) counts as a clearly slower window, unless the
 *       resource drops about as many calls at lower limits: once the windows the reference pools hold at least 64
 *       calls, a window must drop a clearly larger share of its calls than they did (by 2.5 standard errors of
 *       the difference of the two shares), so that a resource whose slowest calls always outlast the caller's
 *       timeout does not have its limit cut window after window. A resource that never drops below its capacity
 *       keeps the old behaviour in effect: a drop early in a window is then clear at once.</li>
 *   <li><b>Slower, not because of us?</b> When two windows in a row are slower and the cut between them did not
 *       make calls faster, either the resource itself became slower or calls admitted under the higher limit are
 *       still draining. It measures at a pinned lower limit to tell (half the limit after a slowdown of 1.5 or
 *       more; otherwise three quarters first, then half if that is slower too): only if the probe at half is
 *       clearly slower than what was learnt does the reference follow the resource. Either way the limit then
 *       resumes at the cut the second slower window called for.</li>
 *   <li><b>Pauses and slow periods.</b> A cut on a window at least 3 times slower than the reference (outside slow
 *       start) remembers the limit before it for 5 s: such a slowdown is a pause or a slow period of the resource
 *       as often as a capacity that fell. As soon as a window at the lower limit reads a mean no higher than
 *       {@code 1 + 1/limit} times what the windows near the remembered limit (from four fifths of it up) read
 *       before, the limit goes back, in two steps: to the geometric mean of the two limits, then, when a window
 *       there reads the same, to the remembered one. A window slower at a restored level ends it: the cut was
 *       about the capacity after all, and that cut remembers nothing.</li>
 *   <li><b>A limit changed by hand</b> ({@code changeMaxConcurrency}) during the first measurement or a
 *       re-measurement ends it, so the limit stays where it was put. If the first measurement had not finished,
 *       nothing is learnt yet: the limit holds at the new value (a drop still cuts it) until, 2 s later, it
 *       measures at three quarters of it, and it then resumes at the new value and grows by the running steps
 *       (no slow start). A change at any other time: the algorithm simply continues from the new value.</li>
 * </ol>
 *
 * <h2>When not to use it</h2>
 * <p>When calls' latency does not grow with the number in flight (a resource that fails fast rather than slows
 * down), latency says nothing and only drops move the limit: use {@link AdaptiveLimit#aimd()} with drops, or a
 * fixed limit. When the bulkhead sees fewer than a few dozen calls per round trip of the resource, decisions are
 * slow. And when the capacity is known and stable, a fixed limit is cheaper and exact.
 *
 * <p>Cost: at call rates above about 8,000 a second, only one call in up to 64 is timed (two clock reads);
 * every drop is counted. See {@link AdaptiveLimit}.
 *
 * <p>Thread-safe value; each bulkhead keeps its own algorithm state, updated without a lock.
 */
public final class SelfTuningLimit extends AdaptiveLimitRange implements AdaptiveLimit {

    private SelfTuningLimit(Builder builder) {
        super(builder);
    }

    /**
     * Returns the fewest samples a window holds (it also holds at least a round trip's worth, and as many more
     * as it takes for the latency to be statistically clear).
     *
     * @return at least 1
     */
    @Override
    public int windowSamples() {
        return super.windowSamples();
    }

    @Override
    public String toString() {
        return "SelfTuning[" + minLimit() + ".." + maxLimit() + ", window at least " + windowSamples() + " samples]";
    }

    /**
     * Configures a {@link SelfTuningLimit}. Every setting has a default that needs no knowledge of the resource:
     * {@code minLimit} 1, {@code maxLimit} 1000, {@code windowSamples} 20, drops on timeouts and refusals. Not
     * thread-safe.
     */
    public static final class Builder extends AdaptiveLimit.Settings<Builder> {

        Builder() {
            windowSamples = 20;
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return a new self-tuning configuration
         * @throws IllegalArgumentException when {@code maxLimit} is less than {@code minLimit}
         */
        public SelfTuningLimit build() {
            checkRange();
            return new SelfTuningLimit(this);
        }
    }
}
