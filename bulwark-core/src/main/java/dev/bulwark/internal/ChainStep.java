package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.ThrowingSupplier;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A policy's behaviour written once for both standalone use and use inside a pipeline: instead of running the
 * operation, a step runs "the rest of the chain" through {@link Chain#proceed}. Standalone, the rest of the chain
 * is just the operation ({@link Chain#EMPTY}). Because the chain, the position and the operation are passed as
 * arguments, composing policies allocates nothing per call beyond what each policy needs itself.
 *
 * <p>A step hands the rest of the chain the cancellation signal it wants the inner steps to see: its own caller's
 * signal, or (for a timeout) a signal derived from it.
 *
 * <p>A step is its own {@link StepSource}: in a pipeline it stands for itself.
 */
public interface ChainStep extends StepSource {

    /**
     * Runs the rest of the chain under this step's policy.
     *
     * @param chain the chain being run
     * @param next the index of the step after this one (or of the operation, when this is the last step)
     * @param operation the caller's operation
     * @param signal the signal this step received
     * @param <T> the result type
     * @param <X> the operation's checked exception
     * @return the result of the rest of the chain
     * @throws X the operation's exception, untouched
     */
    <T, X extends Throwable> T call(Chain chain, int next, ThrowingSupplier<? extends T, X> operation,
                                    CancellationSignal signal) throws X;

    /**
     * Runs the rest of the chain asynchronously under this step's policy. Never throws: failures complete the
     * returned future.
     *
     * @param chain the chain being run
     * @param next the index of the step after this one
     * @param operation the caller's operation
     * @param signal the signal this step received
     * @param <T> the result type
     * @return a new future for the outcome
     */
    <T> CompletableFuture<T> callAsync(Chain chain, int next, Supplier<? extends CompletionStage<T>> operation,
                                       CancellationSignal signal);

    /**
     * Appends this step itself.
     *
     * @param steps the chain being assembled
     */
    @Override
    default void appendStepsTo(List<ChainStep> steps) {
        steps.add(this);
    }
}
