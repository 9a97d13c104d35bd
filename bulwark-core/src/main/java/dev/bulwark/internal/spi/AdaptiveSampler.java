package dev.bulwark.internal.spi;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;

/**
 * The per-bulkhead state of an {@link AdaptiveLimit} for a bulkhead outside core (the cluster-wide one): the same
 * algorithms, the same timing sampler and the same drop predicate that the in-process bulkhead uses, fed by the
 * bulkhead at release and moving the limit of an {@link AdaptiveTarget}.
 *
 * <p>Thread-safe and lock-free, like the in-process limiter it wraps: samples arrive concurrently from every
 * releasing thread, and at most one of them closes a window and decides. Made by the factory
 * beside this interface in this package, which alone names the limiters, so that the SPI does not depend on them.
 */
public interface AdaptiveSampler {

    /**
     * Whether this finished call should be sampled for its latency: every call at low call rates, one in
     * {@code 2^k} above (see the in-process limiter's timing mask). A drop is sampled whatever this says. One
     * volatile read and a plain increment.
     *
     * @return whether to sample the call's latency
     */
    boolean shouldTime();

    /**
     * Classifies a failed call by the configuration's drop predicate. Never throws: a predicate that throws counts
     * as {@link Permit.Outcome#IGNORED}.
     *
     * @param failure what the operation threw or completed with
     * @return {@link Permit.Outcome#DROPPED} or {@link Permit.Outcome#IGNORED}
     */
    Permit.Outcome classify(Throwable failure);

    /**
     * Takes one sample; the sample that completes a window decides and may call {@code target.adaptLimit}.
     *
     * @param target the limit this moves
     * @param endedAt ticker reading when the call was released
     * @param latencyNanos from admission to release
     * @param inFlight slots in use when it finished, itself included
     * @param outcome how it went; {@link Permit.Outcome#IGNORED} is not sampled
     */
    void sample(AdaptiveTarget target, long endedAt, long latencyNanos, int inFlight, Permit.Outcome outcome);
}
