package dev.bulwark;

import dev.bulwark.internal.util.MillisText;
import java.util.Objects;

/**
 * Thrown (or completing a future exceptionally) when a bulkhead refuses a call: no slot was free and the
 * queue was full, or the call waited longer than the maximum wait. The operation did not run.
 *
 * <p>{@link #rejection()} carries the facts: bulkhead name, reason, limits and counts. The exception has no
 * stack trace (refusing is expected flow under load, and filling a stack trace would cost more than the rest
 * of the refusal); its message is built only when first asked for. If the overflow handler threw, its
 * throwable is attached as {@linkplain #getSuppressed() suppressed}.
 *
 * <p><b>One allocation per refusal.</b> When nobody needs the {@link Rejection} at the moment of a refusal (no
 * listener, no overflow handler), an in-process bulkhead refuses a call with a full queue by allocating this
 * exception alone (48 bytes with compressed references): it holds the two counts of the moment and a
 * {@link Rejection} the bulkhead keeps for its limits, and {@link #rejection()} builds the refusal's own
 * {@code Rejection} from them when first asked. Either way {@code rejection()} returns equal values every time.
 *
 * <p>Instances are immutable once thrown, apart from the suppressed throwables, and may be shared between threads.
 */
public final class BulkheadRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * The facts, or (made by a bulkhead) the facts but for the counts, which {@link #executingCount} and
     * {@link #queuedCount} hold. Written again, at most once more, by {@link #rejection()}: a race of two readers
     * writes equal values, and a record's final fields make either one safe to publish without a fence.
     */
    private Rejection rejection;
    private final int executingCount;
    private final int queuedCount;

    /**
     * Creates the exception for a refusal.
     *
     * @param rejection the facts of the refusal
     * @throws NullPointerException when {@code rejection} is {@code null}
     */
    public BulkheadRejectedException(Rejection rejection) {
        this(rejection, (Throwable) null);
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
        this.executingCount = rejection.executingCount();
        this.queuedCount = rejection.queuedCount();
    }

    /**
     * A refusal whose facts are {@code template}'s but for the two counts; see the class documentation. Not public
     * API: the in-process bulkhead reaches it through a private lookup ({@code internal.spi.RejectionAccess}), so
     * that this class needs no static initialiser and depends on no class of the implementation.
     */
    private BulkheadRejectedException(Rejection template, int executingCount, int queuedCount) {
        super(null, null, true, false);
        this.rejection = template;
        this.executingCount = executingCount;
        this.queuedCount = queuedCount;
    }

    /**
     * Returns the facts of the refusal. Thread-safe; the values are the same at every call (the instance too, once
     * built: the first call may build it from the facts the bulkhead kept).
     *
     * @return the rejection, never {@code null}; a deserialized copy has the same facts
     */
    public Rejection rejection() {
        Rejection facts = rejection;
        if (facts.executingCount() == executingCount && facts.queuedCount() == queuedCount) {
            return facts;
        }
        Rejection own = new Rejection(facts.bulkheadName(), facts.reason(), facts.maxConcurrency(), facts.maxQueue(),
                executingCount, queuedCount, facts.waited(), facts.priority());
        rejection = own;
        return own;
    }

    /**
     * Describes the refusal: name, reason, counts and limits, and how long the call waited when it waited at all.
     * The wait is in whole milliseconds (truncated) from one millisecond on, and with three decimals below that, so
     * a call that waited never reads as having waited 0 ms: {@code waited 250 ms}, {@code waited 0.437 ms}, and
     * {@code waited 0.001 ms} for a wait of 1 ns. The text is the same in every locale. Thread-safe; every call
     * returns an equal message.
     *
     * @return a message such as {@code Bulkhead 'db' rejected the call: QUEUE_FULL (executing 10 of 10, queued 5 of 5)}
     *     or {@code Bulkhead 'db' rejected the call: WAIT_TIMEOUT (executing 10 of 10, queued 4 of 5, waited 0.437 ms)}
     */
    @Override
    public String getMessage() {
        Rejection r = rejection();
        StringBuilder message = new StringBuilder(128)
                .append("Bulkhead '").append(r.bulkheadName()).append("' rejected the call: ").append(r.reason())
                .append(" (executing ").append(r.executingCount()).append(" of ").append(r.maxConcurrency())
                .append(", queued ").append(r.queuedCount()).append(" of ").append(r.maxQueue());
        if (!r.waited().isZero()) {
            message.append(", waited ").append(MillisText.of(r.waited())).append(" ms");
        }
        return message.append(')').toString();
    }
}
