package dev.bulwark;

/**
 * Observes one bulkhead: every call it admits, refuses, loses to cancellation and releases. Register
 * listeners with {@link Bulkhead.Builder#listener(BulkheadListener)}; metrics and tracing plug in here.
 *
 * <p>Every method has an empty default, so a listener overrides only what it needs. Methods are called on
 * the thread where the event happens (the caller's, the releasing thread for a granted waiter, the timer
 * thread for an async wait timeout), never while the bulkhead holds a lock, and concurrently from many
 * threads: implementations must be thread-safe and quick. A listener that throws never changes the call's
 * outcome nor the bulkhead's state; its first failure is logged through {@link System.Logger}.
 *
 * <p>For every call exactly one of {@link #admitted}, {@link #rejected} or {@link #cancelled} is reported
 * (a call cancelled before it reached the bulkhead reports nothing), and every admitted call later reports
 * exactly one {@link #released}.
 *
 * <p><b>Times are nanoseconds.</b> Durations are handed over as {@code long} nanoseconds read from the bulkhead's
 * {@link Ticker} (never negative), so that reporting an event allocates nothing; convert with
 * {@link java.time.Duration#ofNanos(long)} when a {@code Duration} is needed. (Earlier snapshots of 0.1 took
 * {@code Duration}s.) A bulkhead reads its clock for these times only while at least one listener is registered.
 */
public interface BulkheadListener {

    /**
     * A call got a slot.
     *
     * @param waitedNanos how long it waited in the queue, in nanoseconds; {@code 0} when a slot was free at once
     */
    default void admitted(long waitedNanos) {
    }

    /**
     * A call was refused; reported before the overflow handler runs.
     *
     * @param rejection the facts of the refusal
     */
    default void rejected(Rejection rejection) {
    }

    /**
     * A queued call left the queue because its signal or its future was cancelled, or its thread interrupted.
     *
     * @param waitedNanos how long it waited before leaving, in nanoseconds
     */
    default void cancelled(long waitedNanos) {
    }

    /**
     * An admitted call is giving its slot back. Reported just before the slot is released, so that events are in
     * causal order: a waiter that gets this slot reports {@link #admitted} after this.
     *
     * @param executionNanos how long it held the slot, in nanoseconds
     */
    default void released(long executionNanos) {
    }
}
