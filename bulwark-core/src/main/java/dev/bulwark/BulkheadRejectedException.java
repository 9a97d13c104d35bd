package dev.bulwark;

import java.util.Objects;

/**
 * Thrown (or completing a future exceptionally) when a bulkhead refuses a call: no slot was free and the
 * queue was full, or the call waited longer than the maximum wait. The operation did not run.
 *
 * <p>{@link #rejection()} carries the facts: bulkhead name, reason, limits and counts. The exception has no
 * stack trace (refusing is expected flow under load, and filling a stack trace would cost more than the rest
 * of the refusal); its message is built only when first asked for. If the overflow handler threw, its
 * throwable is attached as {@linkplain #getSuppressed() suppressed}.
 */
public final class BulkheadRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Rejection rejection;

    /**
     * Creates the exception for a refusal.
     *
     * @param rejection the facts of the refusal
     * @throws NullPointerException when {@code rejection} is {@code null}
     */
    public BulkheadRejectedException(Rejection rejection) {
        super(null, null, true, false);
        this.rejection = Objects.requireNonNull(rejection, "rejection");
    }

    /**
     * Creates the exception for a refusal that a failure caused, such as a cluster-wide bulkhead refusing with
     * {@link Rejection.Reason#UNAVAILABLE} because its store could not be reached.
     *
     * @param rejection the facts of the refusal
     * @param cause what made the bulkhead refuse, or {@code null}
     * @throws NullPointerException when {@code rejection} is {@code null}
     */
    public BulkheadRejectedException(Rejection rejection, Throwable cause) {
        super(null, cause, true, false);
        this.rejection = Objects.requireNonNull(rejection, "rejection");
    }

    /**
     * Returns the facts of the refusal.
     *
     * @return the rejection, never {@code null}
     */
    public Rejection rejection() {
        return rejection;
    }

    /**
     * Describes the refusal: name, reason, counts and limits, and the wait for timeouts.
     *
     * @return a message such as {@code Bulkhead 'db' rejected the call: QUEUE_FULL (executing 10 of 10, queued 5 of 5)}
     */
    @Override
    public String getMessage() {
        Rejection r = rejection;
        StringBuilder message = new StringBuilder(128)
                .append("Bulkhead '").append(r.bulkheadName()).append("' rejected the call: ").append(r.reason())
                .append(" (executing ").append(r.executingCount()).append(" of ").append(r.maxConcurrency())
                .append(", queued ").append(r.queuedCount()).append(" of ").append(r.maxQueue());
        if (!r.waited().isZero()) {
            message.append(", waited ").append(r.waited().toMillis()).append(" ms");
        }
        return message.append(')').toString();
    }
}
