package dev.bulwark;

/**
 * Observes one retry policy. Every method has an empty default. Called on the thread where the event happens,
 * concurrently for concurrent calls: implementations must be thread-safe and quick. A listener that throws never
 * changes the call's outcome; its first failure is logged through {@link System.Logger}.
 *
 * <p>Each call through the policy ends with exactly one of {@link #succeeded} or {@link #failed}, after zero or
 * more {@link #retryScheduled} events (a call whose signal was cancelled before its first attempt reports
 * {@code failed} with 0 attempts). The outcome is reported before the caller sees it. An asynchronous call whose
 * returned future the caller cancelled reports nothing more.
 */
public interface RetryListener {

    /**
     * An attempt failed with a failure the policy handles, and another attempt will follow after the delay.
     *
     * @param event the failed attempt, its failure and the delay
     */
    default void retryScheduled(RetryEvent event) {
    }

    /**
     * The call succeeded.
     *
     * @param attempts how many attempts it took (1 when the first one succeeded)
     */
    default void succeeded(int attempts) {
    }

    /**
     * The call failed for good: with a failure the policy does not handle, after the last allowed attempt, or
     * because it was cancelled.
     *
     * @param attempts how many attempts were made (0 when cancelled before the first)
     * @param failure the failure the caller gets
     * @param retriesExhausted {@code true} when the failure was handled but no retry was left
     */
    default void failed(int attempts, Throwable failure, boolean retriesExhausted) {
    }
}
