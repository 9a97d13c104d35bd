package dev.bulwark;

import java.time.Duration;
import java.util.Objects;

/**
 * A retry about to happen: which attempt failed, how, and how long the retry waits before the next attempt.
 * Immutable.
 *
 * @param retryName the name of the retry policy
 * @param attempt the number of the attempt that failed, starting at 1
 * @param failure what that attempt failed with (the operation's own exception, or a policy's)
 * @param nextDelay the wait before the next attempt
 */
public record RetryEvent(String retryName, int attempt, Throwable failure, Duration nextDelay) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException when a reference component is {@code null}
     * @throws IllegalArgumentException when {@code attempt} is less than 1
     */
    public RetryEvent {
        Objects.requireNonNull(retryName, "retryName");
        Objects.requireNonNull(failure, "failure");
        Objects.requireNonNull(nextDelay, "nextDelay");
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be at least 1 but was " + attempt);
        }
    }
}
