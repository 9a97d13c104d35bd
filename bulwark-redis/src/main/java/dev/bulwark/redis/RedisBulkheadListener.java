package dev.bulwark.redis;

/**
 * Observes what is particular to a cluster-wide bulkhead: permits whose lease was lost and calls that ran
 * without a permit. The core {@link dev.bulwark.BulkheadListener} events (admitted, rejected, cancelled,
 * released) are reported too, through the listeners given to
 * {@link RedisBulkhead.Builder#listener(dev.bulwark.BulkheadListener)}.
 *
 * <p>Methods have empty defaults and are called on the thread that learns the fact: a Redis I/O thread, the
 * scheduler's thread (with the default {@link dev.bulwark.Scheduler#shared()}, a thread of
 * {@link java.util.concurrent.ForkJoinPool#commonPool()} instead: never its timer thread), a caller's thread, or the
 * bulkhead's executor ({@code ranWithoutPermit} of an asynchronous
 * call). Implementations must be thread-safe, quick and must not block (in
 * particular they must not make synchronous Redis calls). A listener that throws is logged and changes nothing.
 */
public interface RedisBulkheadListener {

    /**
     * A permit held by this instance is no longer counted by Redis. Reported at most once per permit. The call
     * holding it keeps running (a bulkhead never interrupts an operation); closing the permit later is harmless
     * and frees no one else's slot.
     *
     * @param lostPermit which permit, and how the loss was noticed
     */
    default void permitLost(LostPermit lostPermit) {
    }

    /**
     * A call ran without a permit because Redis could not decide and the bulkhead is configured
     * {@link FailureMode#FAIL_OPEN}.
     *
     * @param cause why Redis could not decide
     */
    default void ranWithoutPermit(Throwable cause) {
    }
}
