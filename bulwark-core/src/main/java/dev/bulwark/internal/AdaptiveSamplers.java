package dev.bulwark.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;
import dev.bulwark.internal.spi.AdaptiveSampler;
import dev.bulwark.internal.spi.AdaptiveTarget;
import java.util.Objects;

/**
 * Hands the package-private limiters to bulkheads outside core through {@link AdaptiveSampler}, so that the
 * cluster-wide bulkhead runs exactly the in-process algorithms without this package being exported.
 */
public final class AdaptiveSamplers {

    private AdaptiveSamplers() {
    }

    /**
     * Makes the sampler of {@code limit}; see {@link AdaptiveSampler#of}.
     *
     * @param limit the configuration
     * @param initialLimit the limit the algorithm starts from
     * @return a new sampler
     */
    public static AdaptiveSampler of(AdaptiveLimit limit, int initialLimit) {
        return new Delegate(AdaptiveLimiter.of(Objects.requireNonNull(limit, "limit"), initialLimit));
    }

    private static final class Delegate implements AdaptiveSampler {

        private final AdaptiveLimiter limiter;

        Delegate(AdaptiveLimiter limiter) {
            this.limiter = limiter;
        }

        @Override
        public boolean shouldTime() {
            return limiter.shouldTime();
        }

        @Override
        public Permit.Outcome classify(Throwable failure) {
            return limiter.classify(failure);
        }

        @Override
        public void sample(AdaptiveTarget target, long endedAt, long latencyNanos, int inFlight,
                           Permit.Outcome outcome) {
            limiter.sample(target, endedAt, latencyNanos, inFlight, outcome);
        }
    }
}
