package dev.bulwark;

import dev.bulwark.internal.Chain;
import dev.bulwark.internal.ChainStep;
import dev.bulwark.internal.StepSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A policy that is one chain step: {@link Retry} and {@link Timeout}. Standalone, a call runs the step over the
 * empty chain (so the operation is the rest of the chain); in a {@link Pipeline}, the step joins the pipeline's
 * chain. Written once here so that both policies enter their step the same way. Immutable and thread-safe.
 * Package-private, so closed to users without {@code sealed} (which would make it name, and depend on, its
 * subclasses).
 *
 * @param <S> the step
 */
abstract class SingleStepPolicy<S extends ChainStep> implements Policy, StepSource {

    final S step;

    SingleStepPolicy(S step) {
        this.step = step;
    }

    /**
     * Runs {@code operation} under this policy on the calling thread; the class description states what the policy
     * does and which of its own exceptions it throws.
     *
     * @throws X the operation's own exception, untouched
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T extends @Nullable Object, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                                        CancellationSignal signal) throws X {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return step.call(Chain.EMPTY, 0, operation, signal);
    }

    /**
     * Runs an asynchronous operation under this policy without blocking; the class description states what the
     * policy does. Failures, the policy's own included, complete the returned future.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T extends @Nullable Object> CompletableFuture<T> callAsync(
            Supplier<? extends CompletionStage<T>> operation, CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return step.callAsync(Chain.EMPTY, 0, operation, signal);
    }

    /**
     * Appends this policy's step to a pipeline's chain. Part of Bulwark's internal composition contract
     * ({@code dev.bulwark.internal.StepSource}, not exported): applications compose with
     * {@link Pipeline#of(Policy...)} instead.
     *
     * @param steps the chain being assembled
     */
    @Override
    public void appendStepsTo(List<ChainStep> steps) {
        steps.add(step);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + step + "]";
    }
}
