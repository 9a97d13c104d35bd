package dev.bulwark.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;
import dev.bulwark.SelfTuningLimit;
import java.util.function.Predicate;

/**
 * The per-bulkhead state of an {@link AdaptiveLimit}: fed one sample per finished call, it decides the bulkhead's
 * next limit and applies it through {@link InProcessBulkhead#adaptLimit(int, int)}. Thread-safe: samples arrive
 * concurrently from every releasing thread.
 */
abstract class AdaptiveLimiter {

    final int minLimit;
    final int maxLimit;
    private final Predicate<? super Throwable> dropWhen;

    AdaptiveLimiter(AdaptiveLimit config) {
        this.minLimit = config.minLimit();
        this.maxLimit = config.maxLimit();
        this.dropWhen = config.dropWhen();
    }

    static AdaptiveLimiter of(AdaptiveLimit config, int initialLimit) {
        if (config instanceof SelfTuningLimit) {
            return new SelfTuningLimiter((SelfTuningLimit) config, initialLimit);
        }
        if (config instanceof AdaptiveLimit.Aimd) {
            return new AimdLimiter((AdaptiveLimit.Aimd) config, initialLimit);
        }
        return new GradientLimiter((AdaptiveLimit.Gradient) config, initialLimit);
    }

    /** Classifies a failure of {@code call}/{@code callAsync}. Never throws. */
    final Permit.Outcome classify(Throwable failure) {
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
     * @param startedAt ticker reading when the call was admitted
     * @param latencyNanos from admission to release
     * @param inFlight slots in use when it finished, itself included
     * @param outcome how it went
     */
    abstract void sample(InProcessBulkhead bulkhead, long startedAt, long latencyNanos, int inFlight,
                         Permit.Outcome outcome);
}
