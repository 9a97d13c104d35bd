package dev.bulwark.internal.adaptive;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.internal.spi.AdaptiveSampler;
import java.util.Objects;

/**
 * Makes the in-process limiters for bulkheads outside core: every limiter is an {@link AdaptiveSampler}, so the
 * cluster-wide bulkhead runs exactly the in-process algorithms. The factory lives beside the limiters rather than on
 * the interface so that the SPI does not depend on its implementation; a bulkhead outside core sees only the SPI's
 * interface, never a limiter's class. {@code module-info} exports this package to the Redis module alone.
 */
public final class AdaptiveSamplers {

    private AdaptiveSamplers() {
    }

    /**
     * Makes the state of {@code limit} for a bulkhead whose limit is {@code initialLimit} now.
     *
     * @param limit the configuration
     * @param initialLimit the limit the algorithm starts from
     * @return a new sampler
     * @throws NullPointerException when {@code limit} is {@code null}
     */
    public static AdaptiveSampler of(AdaptiveLimit limit, int initialLimit) {
        return AdaptiveLimiter.of(Objects.requireNonNull(limit, "limit"), initialLimit);
    }
}
