package dev.bulwark.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Permit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Gathers samples into windows and lets the algorithm decide once per window.
 *
 * <p>A window closes after {@code max(windowSamples, limit)} samples: at full use, a limit's worth of calls
 * finishing is one round trip, so the limit moves at most once per round trip and its decisions rest on enough
 * samples for a steady mean (a single slow call among fast ones, common with high-variance latencies, decides
 * nothing). A drop closes the window as soon as it holds {@code min(windowSamples, limit)} samples, so overload is
 * answered within a round trip, once.
 *
 * <p>Thread-safe: the window and the algorithm's state are guarded by a lock held for a few arithmetic operations
 * (never while blocking, never around user code); the new limit is applied after the lock is released, and only
 * if the limit still has the value the decision was based on.
 */
abstract class WindowedLimiter extends AdaptiveLimiter {

    /** What one window saw. */
    static final class Window {
        int limit;
        long samples;
        double meanLatencyNanos;
        long drops;
        int maxInFlight;

        boolean used() {
            return maxInFlight * 2 >= limit;
        }
    }

    private final int windowSamples;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private final Window window = new Window();
    private double latencySum;
    /** The algorithm's view of the limit, kept fractional between windows. */
    double estimatedLimit;

    WindowedLimiter(AdaptiveLimit config, int initialLimit) {
        super(config);
        this.windowSamples = config.windowSamples();
        this.estimatedLimit = initialLimit;
    }

    @Override
    final void sample(InProcessBulkhead bulkhead, long startedAt, long latencyNanos, int inFlight,
                      Permit.Outcome outcome) {
        if (outcome == Permit.Outcome.IGNORED) {
            return;
        }
        int current;
        int next;
        lock.lock();
        try {
            window.maxInFlight = Math.max(window.maxInFlight, inFlight);
            if (outcome == Permit.Outcome.DROPPED) {
                window.drops++;
            } else {
                latencySum += Math.max(1L, latencyNanos);
                window.samples++;
            }
            current = bulkhead.maxConcurrency();
            long seen = window.samples + window.drops;
            if (seen < Math.max(windowSamples, current)
                    && !(window.drops > 0 && seen >= Math.min(windowSamples, current))) {
                return;
            }
            if (Math.abs(current - estimatedLimit) >= 1.0) {
                estimatedLimit = current; // someone changed the limit by hand: continue from there
            }
            window.limit = current;
            window.meanLatencyNanos = window.samples == 0 ? Double.NaN : latencySum / window.samples;
            estimatedLimit = Math.max(minLimit, Math.min(maxLimit, decide(window)));
            next = clamp(estimatedLimit);
            window.samples = 0;
            window.drops = 0;
            window.maxInFlight = 0;
            latencySum = 0.0;
        } finally {
            lock.unlock();
        }
        if (next != current) {
            bulkhead.adaptLimit(current, next);
        }
    }

    /**
     * Decides the next limit from a closed window. Called under the lock.
     *
     * @param closed the window (its mean latency is NaN when it held only drops)
     * @return the new estimated limit, before clamping to the range
     */
    abstract double decide(Window closed);
}
