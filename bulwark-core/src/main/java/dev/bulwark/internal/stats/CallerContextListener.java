package dev.bulwark.internal.stats;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;

/**
 * A bulkhead listener that reports a queued call's outcome in its caller's context (its trace): a metrics binding
 * that turns waits into observations or span events. When a call starts to wait, the in-process bulkhead asks the
 * listener, on the caller's thread, for {@link #callerContext()} and keeps it with the waiter; the wait's outcome is
 * then reported through the methods below with that context, on whatever thread decided it (the one that released
 * a slot, the timer's, the canceller's). Calls that never queued are reported through the plain
 * {@link BulkheadListener} methods on the caller's thread, whose context is current anyway; so is a queued call when
 * the bulkhead's listeners changed while it waited.
 *
 * <p>Capturing costs only calls that queue (they allocate a waiter anyway); a call that finds a free slot pays
 * nothing for it. Implementations must be thread-safe, must not throw and must not block.
 */
public interface CallerContextListener extends BulkheadListener {

    /**
     * Captures, on the caller's thread as its call starts to wait, what its outcome should be reported in.
     *
     * @return the context, or {@code null} when there is none (then nothing is kept for this listener)
     */
    Object callerContext();

    /**
     * A queued call got its slot.
     *
     * @param waitedNanos how long it waited
     * @param priority the priority it asked for
     * @param callerContext what {@link #callerContext()} returned for it (may be {@code null})
     */
    void admitted(long waitedNanos, Priority priority, Object callerContext);

    /**
     * A queued call left the queue because its caller gave up.
     *
     * @param waitedNanos how long it waited
     * @param priority the priority it asked for
     * @param callerContext what {@link #callerContext()} returned for it (may be {@code null})
     */
    void cancelled(long waitedNanos, Priority priority, Object callerContext);

    /**
     * A queued call was refused (its wait timed out, it was evicted, or refused by a close or a lowered limit).
     *
     * @param rejection the refusal
     * @param callerContext what {@link #callerContext()} returned for it (may be {@code null})
     */
    void rejected(Rejection rejection, Object callerContext);
}
