package dev.bulwark;

import java.time.Duration;

/**
 * Observes one timeout policy. Every method has an empty default. Called on the thread where the event happens
 * (the timer thread when a deadline passes), concurrently for concurrent calls: implementations must be thread-safe
 * and quick. A listener that throws never changes the call's outcome; its first failure is logged through
 * {@link System.Logger}.
 *
 * <p>Each call through the policy reports exactly one of {@link #timedOut} or {@link #finishedInTime}.
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
     * @param elapsed how long it took
     */
    default void finishedInTime(Duration elapsed) {
    }
}
