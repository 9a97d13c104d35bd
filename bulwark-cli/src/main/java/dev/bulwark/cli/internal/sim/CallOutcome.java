package dev.bulwark.cli.internal.sim;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import dev.bulwark.TimeoutExceededException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** How one simulated call ended. Every arrival ends in exactly one of these. */
public enum CallOutcome {

    /** The downstream served it. */
    COMPLETED("completed"),
    /** The bulkhead refused it at once: no slot was free and the queue was full. */
    REJECTED_QUEUE_FULL("rejected, queue full"),
    /** The bulkhead refused it after it waited the maximum wait in the queue. */
    REJECTED_WAIT_TIMEOUT("rejected, wait timeout"),
    /** A newer call took its place in the full queue (LIFO, or a higher priority). */
    REJECTED_EVICTED("rejected, evicted"),
    /** Its (last) attempt's timeout passed, in the bulkhead's queue or while the downstream served it. */
    TIMED_OUT("timed out"),
    /** It was still queued or in flight when the run ended (after the drain). */
    CANCELLED("cancelled at end"),
    /** It ended with an exception the simulator does not expect: a fault in the simulator or the library. */
    FAILED("failed unexpectedly");

    private final String label;

    CallOutcome(String label) {
        this.label = label;
    }

    /**
     * Returns the outcome's name for people.
     *
     * @return for example {@code rejected, queue full}
     */
    public String label() {
        return label;
    }

    /**
     * Returns whether this outcome is a refusal by the bulkhead.
     *
     * @return {@code true} for every kind of rejection
     */
    public boolean isRejection() {
        return this == REJECTED_QUEUE_FULL || this == REJECTED_WAIT_TIMEOUT || this == REJECTED_EVICTED;
    }

    /**
     * Classifies how a call ended.
     *
     * @param failure the call's exception, or {@code null} when it completed
     * @return the outcome
     */
    public static CallOutcome of(Throwable failure) {
        if (failure == null) {
            return COMPLETED;
        }
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof BulkheadRejectedException) {
            Rejection.Reason reason = ((BulkheadRejectedException) cause).rejection().reason();
            if (reason == Rejection.Reason.QUEUE_FULL) {
                return REJECTED_QUEUE_FULL;
            }
            if (reason == Rejection.Reason.WAIT_TIMEOUT) {
                return REJECTED_WAIT_TIMEOUT;
            }
            if (reason == Rejection.Reason.EVICTED) {
                return REJECTED_EVICTED;
            }
            return FAILED;
        }
        if (cause instanceof TimeoutExceededException) {
            return TIMED_OUT;
        }
        if (cause instanceof CancellationException) {
            return CANCELLED;
        }
        return FAILED;
    }
}
