package dev.bulwark.internal.util;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** Small helpers for completion stages supplied by users. */
public final class Stages {

    private Stages() {
    }

    /**
     * Invokes a stage supplier, turning a throw or a {@code null} into a failed stage, so that callers have one
     * path for every outcome.
     *
     * @param supplier the user's supplier
     * @param <T> the result type
     * @return the supplied stage, or a failed one
     */
    public static <T> CompletionStage<T> start(Supplier<? extends CompletionStage<T>> supplier) {
        CompletionStage<T> stage;
        try {
            stage = supplier.get();
        } catch (Throwable failure) {
            return CompletableFuture.failedFuture(failure);
        }
        if (stage == null) {
            return CompletableFuture.failedFuture(
                    new NullPointerException("operation returned null instead of a CompletionStage"));
        }
        return stage;
    }

    /**
     * Returns the failure a stage completed with as the operation threw it: a {@link CompletionException} that a
     * dependent stage wrapped around the real cause is taken off.
     *
     * @param failure the throwable a completion callback received
     * @return the underlying failure
     */
    public static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * Cancels a stage if it is a future; other stages cannot be cancelled from outside.
     *
     * @param stage the stage
     * @param mayInterruptIfRunning passed to {@link java.util.concurrent.Future#cancel(boolean)}
     */
    public static void cancel(CompletionStage<?> stage, boolean mayInterruptIfRunning) {
        if (stage instanceof java.util.concurrent.Future) {
            try {
                ((java.util.concurrent.Future<?>) stage).cancel(mayInterruptIfRunning);
            } catch (UnsupportedOperationException notCancellable) {
                // A minimal stage: nothing more can be done from outside.
            }
        }
    }
}
