package dev.bulwark;

/**
 * Observes one bulkhead: every call it admits, refuses, loses to cancellation and releases. Register
 * listeners with {@link Bulkhead.Builder#listener(BulkheadListener)}; metrics and tracing plug in here.
 *
 * <p>Every method has an empty default, so a listener overrides only what it needs. Methods are called on the thread
 * where the event happens (the caller's, the releasing thread for a granted waiter, a thread of
 * {@code ForkJoinPool.commonPool()} for an async wait timeout with the default scheduler (the scheduler's thread with
 * one you gave; never the shared timer thread), the deciding thread for an async waiter evicted, closed out or too
 * heavy for a lowered limit), never while the bulkhead holds a lock, and concurrently from many threads:
 * implementations must be thread-safe and quick. A listener that throws never changes the call's outcome nor the
 * bulkhead's state; its first failure is logged through {@link System.Logger}.
 *
 * <p>For every call exactly one of {@link #admitted}, {@link #rejected} or {@link #cancelled} is reported
 * (a call cancelled before it reached the bulkhead reports nothing, nor does a {@link Bulkhead#tryAcquire()} that
 * found no slot free: it is no call, and calls no overflow handler either), and every admitted call later reports
 * exactly one {@link #released}.
 *
 * <p><b>Times are nanoseconds.</b> Durations are handed over as {@code long} nanoseconds read from the bulkhead's
 * {@link Ticker} (never negative), so that reporting an event allocates nothing; convert with
 * {@link java.time.Duration#ofNanos(long)} when a {@code Duration} is needed. (Earlier snapshots of 0.1 took
 * {@code Duration}s.) A bulkhead reads its clock for these times only while at least one listener is registered.
 */
public interface BulkheadListener {

    /**
     * A call got a slot. Override this one when the call's {@link Priority} does not matter to you; bulkheads call
     * {@link #admitted(long, Priority)}, whose default calls this.
     *
     * @param waitedNanos how long it waited in the queue, in nanoseconds; {@code 0} when a slot was free at once
     */
    default void admitted(long waitedNanos) {
    }

    /**
     * A call of the given priority got a slot: the event bulkheads report, so that admissions can be counted per
     * priority. Its default calls {@link #admitted(long)}; override one of the two, not both (overriding this one
     * replaces that call). A call made without {@link CallOptions} is reported as {@link Priority#NORMAL}.
     *
     * @param waitedNanos how long it waited in the queue, in nanoseconds; {@code 0} when a slot was free at once
     * @param priority the priority the call asked for, never {@code null}
     */
    default void admitted(long waitedNanos, Priority priority) {
        admitted(waitedNanos);
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
     * A queued call of the given priority left the queue because its caller gave up: the event bulkheads report.
     * Its default calls {@link #cancelled(long)}; override one of the two, not both. (A refusal's priority is
     * {@link Rejection#priority()}.)
     *
     * @param waitedNanos how long it waited before leaving, in nanoseconds
     * @param priority the priority the call asked for, never {@code null}
     */
    default void cancelled(long waitedNanos, Priority priority) {
        cancelled(waitedNanos);
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
