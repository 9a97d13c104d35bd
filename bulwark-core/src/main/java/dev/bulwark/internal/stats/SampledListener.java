package dev.bulwark.internal.stats;

import dev.bulwark.BulkheadListener;

/**
 * A bulkhead listener that can do with a sample of execution times: a metrics binding whose timers keep an exact
 * count but estimate durations from a sample. The in-process bulkhead recognises it when it is attached and then
 * reads the clock for an execution only when {@link #sampler()} picks the call (or when a plain listener needs every
 * time anyway); releases are reported through {@link #released(long, long)} instead of
 * {@link BulkheadListener#released(long)}. Every other event is reported as to any listener, with exact values.
 * Bulkheads that do not know this interface (a cluster-wide one, say) simply call the {@link BulkheadListener}
 * methods with exact times, so implementations must handle both.
 *
 * <p>Implementations must be thread-safe, must not throw, and must not block: they are called on the call path.
 */
public interface SampledListener extends BulkheadListener {

    /** Marks an execution whose time was not measured (the call was not in the sample). */
    long UNTIMED = Long.MIN_VALUE;

    /**
     * Returns the sampler that decides which executions are timed. When several sampled listeners are attached to
     * one bulkhead, the first one's decides for all, and one clock reading serves them all.
     *
     * @return the sampler, the same instance every time
     */
    TimingSampler sampler();

    /**
     * Reports a release.
     *
     * @param executionNanos how long the call held its slot, or {@link #UNTIMED}
     * @param endedAt the clock reading that ended the execution, when timed (for the sampler's rate estimate)
     */
    void released(long executionNanos, long endedAt);
}
