package dev.bulwark.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Short-window latency against a long-window baseline, updated once per window of about one round trip.
 *
 * <p>Samples are gathered into windows of {@code max(shortWindow, limit)} samples: at full use, a limit's worth of
 * calls finishing is one round trip. At the end of a window its mean latency is compared with the baseline (a
 * slow average of latency without queueing): the gradient {@code tolerance * baseline / mean}, clamped to
 * [0.5, 1], says how overloaded the resource is. A drop in the window halves the limit at once. Below 1 the limit moves
 * towards {@code limit * gradient} by the smoothing factor; at 1, with at least half the limit used during the
 * window, it grows by its square root at once (a fast ramp-up: 5 to 100 in about 17 round trips); otherwise it
 * stays. Updating per round trip rather than per sample keeps growth from compounding within one round trip.
 *
 * <p>Two guards against the failure modes reported for Netflix's Gradient2 (their #134): headroom is added only
 * at a gradient of 1, never under modest overload; and the baseline rises only while our own load cannot be what
 * raised latency (less than half the limit used during the window, or the limit at its minimum), so the queueing
 * we cause can never become the new normal. A resource that genuinely became slower is accepted the same way:
 * the limit comes down until our load no longer queues, and from there the baseline follows.
 *
 * <p>Thread-safe: the window and the estimate are guarded by a lock held for a few arithmetic operations (never
 * while blocking, never around user code); the limit is applied after the lock is released.
 */
final class GradientLimiter extends AdaptiveLimiter {

    private final double tolerance;
    private final double smoothing;
    private final int shortWindow;
    private final int longWindow;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private double estimatedLimit;
    private double baselineLatency = Double.NaN;
    private long windowSamples;
    private double windowLatencySum;
    private int windowMaxInFlight;
    private long windowDrops;

    GradientLimiter(AdaptiveLimit.Gradient config, int initialLimit) {
        super(config);
        this.tolerance = config.tolerance();
        this.smoothing = config.smoothing();
        this.shortWindow = config.shortWindow();
        this.longWindow = config.longWindow();
        this.estimatedLimit = initialLimit;
    }

    @Override
    void sample(InProcessBulkhead bulkhead, long startedAt, long latencyNanos, int inFlight,
                Permit.Outcome outcome) {
        if (outcome == Permit.Outcome.IGNORED) {
            return;
        }
        int current;
        int applied;
        lock.lock();
        try {
            windowMaxInFlight = Math.max(windowMaxInFlight, inFlight);
            if (outcome == Permit.Outcome.DROPPED) {
                windowDrops++;
            } else {
                windowLatencySum += Math.max(1.0, latencyNanos);
                windowSamples++;
            }
            current = bulkhead.maxConcurrency();
            long seen = windowSamples + windowDrops;
            // A drop closes the window after a short window's worth of samples: overload gets a quick answer.
            if (seen < Math.max(shortWindow, current) && !(windowDrops > 0 && seen >= shortWindow)) {
                return;
            }
            applied = endWindow(current);
        } finally {
            lock.unlock();
        }
        if (applied != current) {
            bulkhead.adaptLimit(current, applied);
        }
    }

    /** Closes the window: updates the baseline and the estimate. Called under the lock. */
    private int endWindow(int current) {
        if (Math.abs(current - estimatedLimit) >= 1.0) {
            estimatedLimit = current; // someone changed the limit by hand: continue from there
        }
        double gradient = 1.0;
        if (windowSamples > 0) {
            double mean = windowLatencySum / windowSamples;
            if (Double.isNaN(baselineLatency)) {
                baselineLatency = mean;
            }
            boolean ourLoadCanQueue = windowMaxInFlight * 2 >= current && current > minLimit;
            if (mean < baselineLatency || !ourLoadCanQueue) {
                double weight = Math.min(1.0, (double) windowSamples / longWindow);
                baselineLatency += weight * (mean - baselineLatency);
            }
            gradient = Math.max(0.5, Math.min(1.0, tolerance * baselineLatency / mean));
        }
        if (windowDrops > 0) {
            // The resource said it is overloaded: halve at once, as AIMD would, rather than smooth.
            estimatedLimit *= 0.5;
        } else if (gradient < 1.0) {
            estimatedLimit += smoothing * (estimatedLimit * gradient - estimatedLimit);
        } else if (windowMaxInFlight * 2 >= current) {
            estimatedLimit += Math.sqrt(estimatedLimit);
        }
        estimatedLimit = Math.max(minLimit, Math.min(maxLimit, estimatedLimit));
        windowSamples = 0;
        windowLatencySum = 0.0;
        windowMaxInFlight = 0;
        windowDrops = 0;
        return clamp(estimatedLimit);
    }
}
