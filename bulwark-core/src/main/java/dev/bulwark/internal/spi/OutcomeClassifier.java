package dev.bulwark.internal.spi;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.TimeoutExceededException;

/**
 * A permit that can tell how a failed call counts for its bulkhead's adaptive limit, by that limit's own drop
 * predicate. Code that holds a permit around an operation it runs itself (the per-key bulkhead's key and global
 * slots) closes the permit with this outcome, so the limit sees the same drops as through the bulkhead's own
 * {@code call}. The permit, not the bulkhead, answers: a public bulkhead type may be a facade over its engine (as
 * {@code RedisBulkhead} is), while its permits are the engine's own. Thread-safe; never throws.
 */
public interface OutcomeClassifier {

    /**
     * Classifies a failed call: {@link Permit.Outcome#DROPPED} when the adaptive limit's drop predicate matches,
     * {@link Permit.Outcome#IGNORED} otherwise, and without an adaptive limit. A predicate that throws counts as
     * {@code IGNORED}.
     *
     * @param failure what the operation threw or completed with, not {@code null}
     * @return {@code DROPPED} or {@code IGNORED}
     */
    Permit.Outcome outcomeOf(Throwable failure);

    /**
     * The outcome to close {@code permit} with after its operation ended with {@code failure}: a success for
     * {@code null}; the permit's own classification when it offers one; otherwise the default drop predicate of
     * {@link dev.bulwark.AdaptiveLimit#dropWhen()} (a timeout or a refusal from further down is a drop).
     *
     * @param permit the permit to close
     * @param failure what the operation failed with, or {@code null} when it returned
     * @return the outcome
     */
    static Permit.Outcome outcomeAfter(Permit permit, Throwable failure) {
        if (failure == null) {
            return Permit.Outcome.SUCCESS;
        }
        if (permit instanceof OutcomeClassifier classifier) {
            return classifier.outcomeOf(failure);
        }
        return failure instanceof TimeoutExceededException || failure instanceof BulkheadRejectedException
                ? Permit.Outcome.DROPPED : Permit.Outcome.IGNORED;
    }
}
