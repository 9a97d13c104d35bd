package dev.bulwark.internal.binding;

import dev.bulwark.RetryEvent;
import dev.bulwark.RetryListener;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.Function;

/**
 * What both metrics back ends observe of a retry, and when: each call counted once by how it ended (an
 * {@link Outcome}), and each retry scheduled. The back end supplies only the increments (a Micrometer counter's, an
 * adder read at collection) and names the series.
 *
 * <p>Thread-safe when the increments are (both back ends' are); allocates nothing per event.
 */
public final class RetryObserver extends AttachedListener implements RetryListener {

    /** How a call through a retry ended. */
    public enum Outcome {
        /** Succeeded on its first attempt. */
        SUCCEEDED_WITHOUT_RETRY,
        /** Succeeded after at least one retry. */
        SUCCEEDED_AFTER_RETRY,
        /** Failed on its last allowed attempt. */
        FAILED_RETRIES_EXHAUSTED,
        /** Failed with a failure the retry does not retry. */
        FAILED_NOT_RETRYABLE,
        /** Cancelled (a {@link CancellationException} ended it). */
        CANCELLED
    }

    private final String description;
    /** Indexed by {@link Outcome#ordinal()}. */
    private final Runnable[] calls;
    private final Runnable retries;

    /**
     * Creates the observer of one retry.
     *
     * @param description what {@link #toString()} returns ("BulwarkMetrics retry listener", say)
     * @param calls the increment of the calls that ended with each outcome, asked once per outcome in order
     * @param retries the increment of the retries scheduled
     */
    public RetryObserver(String description, Function<Outcome, Runnable> calls, Runnable retries) {
        this.description = Objects.requireNonNull(description, "description");
        Outcome[] outcomes = Outcome.values();
        this.calls = new Runnable[outcomes.length];
        for (Outcome outcome : outcomes) {
            this.calls[outcome.ordinal()] = Objects.requireNonNull(calls.apply(outcome), "calls");
        }
        this.retries = Objects.requireNonNull(retries, "retries");
    }

    @Override
    public void retryScheduled(RetryEvent event) {
        retries.run();
    }

    @Override
    public void succeeded(int attempts) {
        calls[(attempts <= 1 ? Outcome.SUCCEEDED_WITHOUT_RETRY : Outcome.SUCCEEDED_AFTER_RETRY).ordinal()].run();
    }

    @Override
    public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
        Outcome outcome;
        if (retriesExhausted) {
            outcome = Outcome.FAILED_RETRIES_EXHAUSTED;
        } else if (failure instanceof CancellationException) {
            outcome = Outcome.CANCELLED;
        } else {
            outcome = Outcome.FAILED_NOT_RETRYABLE;
        }
        calls[outcome.ordinal()].run();
    }

    @Override
    public String toString() {
        return description;
    }
}
