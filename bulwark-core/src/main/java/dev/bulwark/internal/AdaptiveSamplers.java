package dev.bulwark.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.internal.spi.AdaptiveSampler;
import java.util.Objects;

/**
 * Hands the package-private limiters to bulkheads outside core: every limiter is an {@link AdaptiveSampler}, so the
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
        return AdaptiveLimiter.of(Objects.requireNonNull(limit, "limit"), initialLimit);
    }
}
