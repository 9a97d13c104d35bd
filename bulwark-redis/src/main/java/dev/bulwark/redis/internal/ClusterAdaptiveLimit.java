package dev.bulwark.redis.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;
import dev.bulwark.SelfTuningLimit;
import dev.bulwark.internal.adaptive.AdaptiveLimiters;
import dev.bulwark.internal.spi.AdaptiveSampler;
import dev.bulwark.internal.spi.AdaptiveTarget;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The adaptive limit of one instance of a cluster-wide bulkhead: it runs the in-process algorithm on this
 * instance's calls and applies its decisions to the limit every instance shares, by compare-and-set in Redis.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>What each instance measures.</b> Its own calls only: from the grant (the reply or wake-up that handed it
 * the permit) to the permit's close, against the resource every instance shares, timed and classified exactly as
 * the in-process bulkhead does it ({@link AdaptiveSampler}: the same timing sampler, the same drop predicate, the
 * same windows). Calls that ran without a permit (failing open) and permits that were lost are not sampled: they
 * say nothing about the limit Redis enforced. The in-flight figure a sample carries, which tells the algorithm
 * whether the limit is in use, is the larger of this instance's own slots and the cluster-wide slots in use that
 * the latest acquire, counts or configure reply carried: an instance alone holds only its share of the limit.
 *
 * <p><b>Applying a decision.</b> The limit the algorithm reads is the cluster limit this instance last saw (every
 * script reply refreshes it). A decision "from {@code expected} to {@code next}" is sent as the {@code configure}
 * script with {@code expected}: Redis sets the limit only if it still is {@code expected}, so across the fleet at
 * most one decision per observed limit wins, and an instance whose window saw a limit that another instance has
 * changed meanwhile simply loses; its reply carries the new limit, from which its next window starts (the
 * windowed limiter continues from a limit that moved under it). The write is sent like a release, never waited
 * for: no caller waits for it, it takes no lock, and its reply runs on a Redis I/O thread that only refreshes the
 * limits. At most one write per instance is in flight: a decision made while the previous one is unanswered is
 * dropped, since it rests on a limit that is about to change. A write that fails or times out changes nothing
 * here, and is not retried: the next window decides again from whatever limit Redis then reports.
 *
 * <p><b>One decider for the self-tuning limit.</b> {@link dev.bulwark.SelfTuningLimit} pins the limit low for its
 * first measurement and probes below it every 10 s or so; with every instance deciding, each joining instance
 * pinned the whole fleet again and the limit spent most of its time pinned (measured: a capacity of 8 held at 4).
 * So its decisions carry this instance's random id and a claim of {@link #CLAIM_MILLIS}: Redis applies a decision
 * only if no other instance's claim still runs, and each applied decision renews the claim. The first instance to
 * decide therefore stays the decider while it lives (its probes alone renew the claim); the others keep sampling
 * and lose. A decider that shuts down gives its claim back ({@link #releaseClaim()}), so another instance takes
 * over at its next decision; one that dies (or stops seeing calls) is replaced once its claim runs out. AIMD and
 * the gradient never pin, so for them every instance decides.
 *
 * <p><b>Invariant.</b> The limit in Redis moves only by a compare-and-set from a value some instance observed, to
 * a value within the adaptive range (the limiters clamp), unless someone changes it by hand
 * ({@code changeMaxConcurrency}), which every limiter then continues from. {@link #writing} is taken by
 * compare-and-set and given back only by the write's completion, so writes never overlap per instance.
 */
public final class ClusterAdaptiveLimit implements AdaptiveTarget {

    private final ClusterBulkhead bulkhead;
    private final AdaptiveSampler sampler;
    /**
     * How long a self-tuning decider keeps the limit to itself after each applied decision: well above the
     * algorithm's longest stretch without a change in a steady state (a probe every 10 s, jittered by 20%), so
     * the decider stays the decider while it lives, and a dead or drained one is replaced within this long.
     */
    static final long CLAIM_MILLIS = 30_000L;

    private final AtomicBoolean writing = new AtomicBoolean();
    /** The configure script's decider arguments: this instance's id and the claim, or none (any instance decides). */
    private final String[] claim;
    /** Cluster-wide slots in use, as the latest reply that carried them said; plain volatile, any recent value. */
    private volatile int clusterSlots;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong won = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();

    ClusterAdaptiveLimit(ClusterBulkhead bulkhead, AdaptiveLimit limit, int initialLimit) {
        this.bulkhead = bulkhead;
        this.sampler = AdaptiveLimiters.of(limit, initialLimit);
        if (limit instanceof SelfTuningLimit) {
            byte[] random = new byte[8];
            new SecureRandom().nextBytes(random);
            this.claim = new String[] {HexFormat.of().formatHex(random), Long.toString(CLAIM_MILLIS)};
        } else {
            this.claim = new String[0];
        }
    }

    /**
     * Samples a permit being closed (before its release is sent, so that it counts itself in flight). Called once
     * per permit, by its first close; never blocks.
     */
    void sample(RemotePermit permit, Permit.Outcome outcome) {
        boolean timed = sampler.shouldTime();
        if (outcome == Permit.Outcome.IGNORED || !timed && outcome != Permit.Outcome.DROPPED) {
            return;
        }
        long endedAt = bulkhead.ticker.read();
        int inFlight = Math.max(bulkhead.heldSlots.get(), clusterSlots);
        sampler.sample(this, endedAt, endedAt - permit.acquiredAt, inFlight, outcome);
    }

    /** How a failed call counts: by the configuration's drop predicate. Never throws. */
    Permit.Outcome classify(Throwable failure) {
        return sampler.classify(failure);
    }

    /** A reply carried the cluster-wide slots in use. */
    void sawClusterSlots(int slots) {
        clusterSlots = slots;
    }

    /**
     * Returns the cluster-wide limit as this instance last saw it.
     *
     * @return at least 1
     */
    @Override
    public int maxConcurrency() {
        return bulkhead.limits.maxConcurrency();
    }

    /**
     * Sends the compare-and-set of the cluster-wide limit from {@code expected} to {@code next}, without waiting.
     *
     * @return whether it was sent ({@code false} while this instance's previous write is unanswered)
     */
    @Override
    public boolean adaptLimit(int expected, int next) {
        return propose(expected, next) != null;
    }

    /**
     * Sends the compare-and-set unless a write of this instance is in flight. Never blocks; thread-safe.
     *
     * @param expected the limit the decision rests on
     * @param next the new limit
     * @return completes with whether Redis applied it ({@code false} when the limit no longer was {@code expected},
     *     or the write failed), or {@code null} when nothing was sent
     */
    public CompletableFuture<Boolean> propose(int expected, int next) {
        if (!writing.compareAndSet(false, true)) {
            return null;
        }
        sent.incrementAndGet();
        // ScriptRunner.run never throws: a command the client refuses fails the future, which gives `writing` back.
        String[] arguments = new String[3 + claim.length];
        arguments[0] = "maxConcurrency";
        arguments[1] = Integer.toString(next);
        arguments[2] = Integer.toString(expected);
        System.arraycopy(claim, 0, arguments, 3, claim.length);
        CompletableFuture<List<Object>> reply = bulkhead.scripts.run(LuaScripts.CONFIGURE, arguments);
        return reply.handle((values, failure) -> {
            try {
                if (failure != null) {
                    return false;
                }
                bulkhead.refreshLimits(values, 2);
                boolean applied = Replies.intAt(values, 5) == 1;
                (applied ? won : lost).incrementAndGet();
                return applied;
            } finally {
                writing.set(false);
            }
        });
    }

    /**
     * Gives back this instance's decider claim, at shutdown: the claim alone (no limit compared or written) for
     * 0 ms, which Redis applies only if the claim is this instance's or has run out, and which then has run out at
     * once, whatever limit Redis holds by then. Sent without waiting and regardless of a write in flight (whose own
     * claim renewal, if it lands after this, runs out within {@link #CLAIM_MILLIS} as before); a failure leaves the
     * claim to run out. Does nothing for limits that take no claim.
     */
    void releaseClaim() {
        if (claim.length == 0) {
            return;
        }
        // The claim alone: a compare-and-set of the limit this instance last saw would keep the claim whenever
        // another instance (or a change by hand) moved the limit since.
        bulkhead.scripts.run(LuaScripts.CONFIGURE, "maxConcurrency", "", "", claim[0], "0");
    }

    /**
     * Returns how many decisions this instance sent to Redis (applied, lost, or failed).
     *
     * @return a count that only grows
     */
    public long decisionsSent() {
        return sent.get();
    }

    /**
     * Returns how many of this instance's decisions Redis applied.
     *
     * @return a count that only grows
     */
    public long decisionsWon() {
        return won.get();
    }

    /**
     * Returns how many of this instance's decisions lost to a limit that had changed meanwhile.
     *
     * @return a count that only grows
     */
    public long decisionsLost() {
        return lost.get();
    }
}
