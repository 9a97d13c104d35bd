package dev.bulwark.internal.adaptive;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.SelfTuningLimit;
import java.util.Objects;

/**
 * Makes the limiters, for the in-process bulkhead and for bulkheads outside core alike: every limiter is an
 * {@link dev.bulwark.internal.spi.AdaptiveSampler}, so the cluster-wide bulkhead runs exactly the in-process
 * algorithms. The only class that names the algorithms: the factory lives here rather than on the SPI's interface,
 * so that the SPI does not depend on its implementation, and rather than on {@link AdaptiveLimiter}, so that the
 * base class does not depend on its subclasses. {@code module-info} exports this package to the Redis module alone.
 */
public final class AdaptiveLimiters {

    private AdaptiveLimiters() {
    }

    /**
     * Makes the limiter of {@code limit} for a bulkhead whose limit is {@code initialLimit} now.
     *
     * @param limit the configuration
     * @param initialLimit the limit the algorithm starts from
     * @return a new limiter, thread-safe
     * @throws NullPointerException when {@code limit} is {@code null}
     */
    public static AdaptiveLimiter of(AdaptiveLimit limit, int initialLimit) {
        Objects.requireNonNull(limit, "limit");
        if (limit instanceof SelfTuningLimit) {
            return new SelfTuningLimiter((SelfTuningLimit) limit, initialLimit);
        }
        if (limit instanceof AdaptiveLimit.Aimd) {
            return new AimdLimiter((AdaptiveLimit.Aimd) limit, initialLimit);
        }
        return new GradientLimiter((AdaptiveLimit.Gradient) limit, initialLimit);
    }

    /**
     * The limit a bulkhead starts at: the configured one, except that {@link SelfTuningLimit} pins it low for its
     * first measurement from the first call on (see {@link SelfTuningLimiter#pinnedStart}), rather than letting a
     * starting limit's worth of calls in whose drain would spoil that measurement.
     *
     * @param config the bulkhead's configuration
     * @return the limit to start at: {@code config.maxConcurrency()} or lower
     */
    public static int startingLimit(BulkheadConfig config) {
        int configured = config.maxConcurrency();
        return config.adaptiveLimit().filter(SelfTuningLimit.class::isInstance)
                .map(limit -> SelfTuningLimiter.pinnedStart((SelfTuningLimit) limit, configured)).orElse(configured);
    }
}
