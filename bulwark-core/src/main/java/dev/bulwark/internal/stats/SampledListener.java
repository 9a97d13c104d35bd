package dev.bulwark.internal.stats;

import dev.bulwark.BulkheadListener;

/**
 * A bulkhead listener that can do with a sample of execution times: a metrics binding whose timers keep an exact
 * count but estimate durations from a sample. The in-process bulkhead recognises it when it is attached and then
 * reads the clock for an execution only when {@link #sampler()} picks the call (or when a plain listener needs every
 * time anyway); it reports only the timed releases, through {@link #released(long, long)} instead of
 * {@link BulkheadListener#released(long)}, and says so once, when the listener is attached, by calling
 * {@link #releasesSampled()}: from then on the listener must derive its count of releases from what it counts anyway
 * (admissions, less the calls holding a slot), because an untimed release costs the call nothing, not even an
 * increment. Every other event is reported as to any listener, with exact values.
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
     * Tells the listener that its bulkhead reports only timed releases, through {@link #released(long, long)}.
     * Called when it is attached (perhaps again when other listeners come and go), before any such release.
     */
    void releasesSampled();

    /**
     * Reports a timed release (an in-process bulkhead never reports an untimed one, see {@link #releasesSampled()}).
     *
     * @param executionNanos how long the call held its slot, or {@link #UNTIMED} (never passed by the in-process
     *     bulkhead; implementations ignore it)
     * @param endedAt the clock reading that ended the execution, when timed (for the sampler's rate estimate)
     */
    void released(long executionNanos, long endedAt);
}
