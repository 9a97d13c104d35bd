package dev.bulwark.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;

/**
 * Additive increase, multiplicative decrease.
 *
 * <p>Invariant: a cut happens at most once per round trip. {@link #lastCutAt} records when the limit was last cut;
 * a drop from a call admitted before that moment was caused by the load that the cut already answered, so it does
 * not cut again. Growth and cuts are applied with {@link InProcessBulkhead#adaptLimit(int, int)}, which changes
 * the limit only if it still has the value the decision was based on, so concurrent samples cannot compound.
 */
final class AimdLimiter extends AdaptiveLimiter {

    private final double backoffRatio;
    private final long latencyThresholdNanos;
    private volatile long lastCutAt;

    AimdLimiter(AdaptiveLimit.Aimd config, long createdAt) {
        super(config);
        this.lastCutAt = createdAt;
        this.backoffRatio = config.backoffRatio();
        this.latencyThresholdNanos = config.latencyThreshold().map(d -> Arguments.boundedNanos(d)).orElse(0L);
    }

    @Override
    void sample(InProcessBulkhead bulkhead, long startedAt, long latencyNanos, int inFlight,
                Permit.Outcome outcome) {
        if (outcome == Permit.Outcome.IGNORED) {
            return;
        }
        int limit = bulkhead.maxConcurrency();
        boolean overloaded = outcome == Permit.Outcome.DROPPED
                || (latencyThresholdNanos > 0L && latencyNanos > latencyThresholdNanos);
        if (overloaded) {
            if (startedAt - lastCutAt < 0L) {
                return; // admitted before the last cut: that cut already answered this overload
            }
            int cut = Math.min(limit - 1, (int) (limit * backoffRatio));
            int next = Math.max(minLimit, cut);
            if (next != limit && bulkhead.adaptLimit(limit, next)) {
                lastCutAt = bulkhead.ticker().read();
            }
        } else if (inFlight * 2 >= limit && limit < maxLimit) {
            // Grow only while the limit is being used: an idle bulkhead must not creep upwards.
            bulkhead.adaptLimit(limit, limit + 1);
        }
    }
}
