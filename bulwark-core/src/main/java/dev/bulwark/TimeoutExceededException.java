package dev.bulwark;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown (or completing a future exceptionally) when a {@link Timeout}'s deadline passed before the call ended.
 * Carries the policy's name and its configured duration. Like {@link BulkheadRejectedException}, it has no stack
 * trace: the deadline is expected flow under load.
 */
public final class TimeoutExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String timeoutName;
    private final Duration timeout;

    /**
     * Creates the exception.
     *
     * @param timeoutName the name of the timeout policy
     * @param timeout the configured duration that was exceeded
     * @throws NullPointerException when an argument is {@code null}
     */
    public TimeoutExceededException(String timeoutName, Duration timeout) {
        super(null, null, true, false);
        this.timeoutName = Objects.requireNonNull(timeoutName, "timeoutName");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * Returns the name of the timeout policy whose deadline passed.
     *
     * @return the name
     */
    public String timeoutName() {
        return timeoutName;
    }

    /**
     * Returns the configured duration that was exceeded.
     *
     * @return the timeout
     */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Describes the timeout.
     *
     * @return a message such as {@code Timeout 'inventory' of 200 ms exceeded}
     */
    @Override
    public String getMessage() {
        return "Timeout '" + timeoutName + "' of " + describe(timeout) + " exceeded";
    }

    private static String describe(Duration duration) {
        if (duration.toNanos() % 1_000_000L == 0 && duration.compareTo(Duration.ofSeconds(10)) < 0) {
            return duration.toMillis() + " ms";
        }
        return duration.toString();
    }
}
