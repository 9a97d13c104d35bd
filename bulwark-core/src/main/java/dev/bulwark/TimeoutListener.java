package dev.bulwark;

/**
 * Observes one timeout policy. Every method has an empty default. Called on the thread where the event is decided,
 * concurrently for concurrent calls: {@link #finishedInTime} on the caller's thread (or the thread that completed the
 * asynchronous stage); {@link #timedOut} for a synchronous call on the caller's thread as the call returns when the
 * scheduler is {@link Scheduler#shared()} (the default), otherwise on the scheduler's thread at the deadline; for an
 * asynchronous call, just after the deadline on a thread of {@code ForkJoinPool.commonPool()} with
 * {@link Scheduler#shared()} (never on its timer thread), or on the scheduler's thread with any other.
 * Implementations must be thread-safe and quick. A listener that throws never changes the call's outcome; its first
 * failure is logged through {@link System.Logger}.
 *
 * <p>Each call through the policy that starts reports exactly one of {@link #timedOut} or {@link #finishedInTime}.
 * A call that never starts (its signal already cancelled, or the scheduler refused its deadline) reports nothing,
 * and so does an asynchronous call whose returned future the caller completed or cancelled before either.
 *
 * <p>Elapsed times are {@code long} nanoseconds (never negative) so that reporting allocates nothing; convert with
 * {@link java.time.Duration#ofNanos(long)} when needed. (Earlier snapshots of 0.1 passed a {@code Duration}.)
 */
public interface TimeoutListener {

    /**
     * A call's deadline passed: the inner signal was cancelled, and the thread interrupted if so configured.
     *
     * @param exception the exception the caller gets
     */
    default void timedOut(TimeoutExceededException exception) {
    }

    /**
     * A call ended (successfully or not) before its deadline.
     *
     * @param elapsedNanos how long it took, in nanoseconds
     */
    default void finishedInTime(long elapsedNanos) {
    }
}
