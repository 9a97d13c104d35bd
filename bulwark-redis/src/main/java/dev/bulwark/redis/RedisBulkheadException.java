package dev.bulwark.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * Thrown by the {@link RedisBulkhead} operations that have no refusal to fall back on (the cluster-wide counts
 * and the limit changes) when Redis does not answer in time or answers with an error, when the connection fails, or
 * when the instance has shut down and closed its connections. The cause is the Lettuce exception, a
 * {@link java.util.concurrent.TimeoutException}, or an {@link IllegalStateException} for an instance shut down. The
 * message says which of these happened, then the cause.
 */
public final class RedisBulkheadException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String bulkheadName;
    private final String operation;

    /**
     * Creates the exception.
     *
     * @param bulkheadName the bulkhead's name
     * @param operation what was attempted, such as {@code executingCount}
     * @param cause what Redis (or the client) reported
     * @throws NullPointerException when an argument is {@code null}
     */
    public RedisBulkheadException(String bulkheadName, String operation, Throwable cause) {
        super("Bulkhead '" + Objects.requireNonNull(bulkheadName, "bulkheadName") + "': "
                + Objects.requireNonNull(operation, "operation") + " failed: "
                + what(Objects.requireNonNull(cause, "cause")), cause);
        this.bulkheadName = bulkheadName;
        this.operation = operation;
    }

    private static String what(Throwable cause) {
        if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
            return "Redis did not answer in time (" + cause + ")";
        }
        if (cause instanceof RedisCommandExecutionException) {
            return "Redis answered with an error (" + cause + ")";
        }
        if (cause instanceof InterruptedException) {
            return "interrupted while waiting for Redis";
        }
        if (cause instanceof IllegalStateException) {
            return String.valueOf(cause.getMessage());
        }
        return "the connection to Redis failed (" + cause + ")";
    }

    /**
     * Returns the name of the bulkhead.
     *
     * @return the name
     */
    public String bulkheadName() {
        return bulkheadName;
    }

    /**
     * Returns what was attempted.
     *
     * @return the operation's name, such as {@code changeMaxConcurrency}
     */
    public String operation() {
        return operation;
    }
}
