package dev.bulwark.internal.adaptive;

import dev.bulwark.AdaptiveLimit;

/**
 * Each window's mean latency against a baseline: what latency looks like without queueing downstream.
 *
 * <p>The gradient {@code tolerance * baseline / mean}, clamped to [0.5, 1], says how overloaded the resource is.
 * Below 1 the limit moves towards {@code limit * gradient} by the smoothing factor; a drop halves it. At 1, with at
 * least half the limit in use, it grows: by its square root per window until the first back-off (a fast ramp-up,
 * like TCP's slow start: 5 to 100 in about 17 round trips), afterwards by 1, doubling each window once it has kept
 * growing for {@value #PATIENT_WINDOWS} windows (up to the square root again), so it probes gently near the
 * capacity it found and quickly once capacity has clearly grown.
 *
 * <p>The baseline comes from a long average of window means (over {@code baselineWindows} windows, so its noise
 * is small). Two guards against the failure modes reported for Netflix's Gradient2 (their #134): headroom is added
 * only at a gradient of 1, never under modest overload; and while our own load can be what raises latency (at
 * least half the limit in use, above the minimum), the baseline may only fall, so the queueing we cause never
 * becomes the new normal. Otherwise (the limit mostly unused, at its minimum, or shrinking for
 * {@code baselineWindows} windows in a row without latency answering) the baseline follows the long average: that
 * is how a resource that genuinely became slower is accepted.
 */
final class GradientLimiter extends WindowedLimiter {

    /** Windows of growth by one, after a back-off, before the growth step starts doubling. */
    private static final int PATIENT_WINDOWS = 5;

    private final double tolerance;
    private final double smoothing;
    private final int baselineWindows;
    private final double longWeight;
    // Read and written by the window's closer only (see WindowedLimiter).
    private double longLatency = Double.NaN;
    private double baselineLatency = Double.NaN;
    private int shrinkingWindows;
    /** The next growth step; NaN until the first back-off (slow start). */
    private double growthStep = Double.NaN;
    /** Windows in a row that grew the limit since the last back-off. */
    private int growingWindows;

    GradientLimiter(AdaptiveLimit.Gradient config, int initialLimit) {
        super(config, initialLimit, false);
        this.tolerance = config.tolerance();
        this.smoothing = config.smoothing();
        this.baselineWindows = config.baselineWindows();
        this.longWeight = 1.0 / baselineWindows;
    }

    @Override
    double decide(Window closed) {
        if (closed.drops > 0) {
            // The resource said it is overloaded: halve at once, as AIMD would, rather than smooth.
            growthStep = 1.0;
            return estimatedLimit * 0.5;
        }
        double mean = closed.meanLatencyNanos;
        if (Double.isNaN(longLatency)) {
            longLatency = mean;
            baselineLatency = mean;
        }
        longLatency += longWeight * (mean - longLatency);
        boolean ourLoadCanQueue = closed.used() && closed.limit > minLimit && shrinkingWindows < baselineWindows;
        baselineLatency = ourLoadCanQueue ? Math.min(baselineLatency, longLatency) : longLatency;
        double gradient = Math.max(0.5, Math.min(1.0, tolerance * baselineLatency / mean));
        if (gradient < 1.0) {
            shrinkingWindows++;
            growingWindows = 0;
            growthStep = 1.0;
            return estimatedLimit + smoothing * (estimatedLimit * gradient - estimatedLimit);
        }
        shrinkingWindows = 0;
        if (!closed.used()) {
            return estimatedLimit;
        }
        double ceiling = Math.sqrt(estimatedLimit);
        if (Double.isNaN(growthStep)) {
            return estimatedLimit + ceiling;
        }
        double step = Math.min(growthStep, ceiling);
        // Near the capacity just found, latency answers a raise a window or two late: grow by one until the
        // limit has kept growing for a while, and only then faster.
        if (++growingWindows >= PATIENT_WINDOWS) {
            growthStep = Math.min(growthStep * 2.0, ceiling);
        }
        return estimatedLimit + step;
    }
}
