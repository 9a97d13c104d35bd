package dev.bulwark.internal.adaptive;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.internal.util.Arguments;

/**
 * Additive increase, multiplicative decrease, decided once per window (about one round trip): a window with a
 * drop, or whose mean latency is above the threshold, cuts the limit by the backoff ratio (at least by one); a
 * window of fast successes with at least half the limit in use grows it by one; otherwise it stays. One decision
 * per round trip means a burst of twenty timeouts is one cut, not twenty, and an idle bulkhead never creeps up.
 */
final class AimdLimiter extends WindowedLimiter {

    private final double backoffRatio;
    private final double latencyThresholdNanos;

    AimdLimiter(AdaptiveLimit.Aimd config, int initialLimit) {
        super(config, initialLimit, false);
        this.backoffRatio = config.backoffRatio();
        long threshold = config.latencyThreshold().map(Arguments::boundedNanos).orElse(0L);
        this.latencyThresholdNanos = threshold == 0L ? Double.POSITIVE_INFINITY : threshold;
    }

    @Override
    double decide(Window closed) {
        boolean overloaded = closed.drops > 0 || closed.meanLatencyNanos > latencyThresholdNanos;
        if (overloaded) {
            return Math.min(estimatedLimit - 1.0, estimatedLimit * backoffRatio);
        }
        return closed.used() ? estimatedLimit + 1.0 : estimatedLimit;
    }
}
