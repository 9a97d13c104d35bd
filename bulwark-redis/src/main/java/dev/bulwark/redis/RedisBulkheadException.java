package dev.bulwark.redis;

import java.util.Objects;

/**
 * Thrown by the {@link RedisBulkhead} operations that have no refusal to fall back on (the cluster-wide counts
 * and the limit changes) when Redis does not answer in time or answers with an error. The cause is the Lettuce
 * exception, or a {@link java.util.concurrent.TimeoutException}.
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
                + Objects.requireNonNull(operation, "operation") + " failed: Redis did not answer ("
                + Objects.requireNonNull(cause, "cause") + ")", cause);
        this.bulkheadName = bulkheadName;
        this.operation = operation;
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
