package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.util.Stages;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * An immutable sequence of steps, outermost first, ending with the caller's operation. Thread-safe; one chain is
 * shared by all calls through a pipeline.
 */
public final class Chain {

    /** The chain with no steps: proceeding runs the operation itself. Standalone policies use it. */
    public static final Chain EMPTY = new Chain(new ChainStep[0]);

    private final ChainStep[] steps;

    /**
     * Creates a chain.
     *
     * @param steps the steps, outermost first; the array is not copied and must not be modified
     */
    public Chain(ChainStep[] steps) {
        this.steps = steps;
    }

    /**
     * Runs the chain from step {@code index}; at the end of the chain, runs the operation.
     *
     * @param index the step to run, or the number of steps to run the operation
     * @param operation the caller's operation
     * @param signal the signal the step (or the operation's policy) should see
     * @param <T> the result type
     * @param <X> the operation's checked exception
     * @return the result
     * @throws X the operation's exception, untouched
     */
    public <T, X extends Throwable> T proceed(int index, ThrowingSupplier<? extends T, X> operation,
                                              CancellationSignal signal) throws X {
        return index == steps.length ? operation.get() : steps[index].call(this, index + 1, operation, signal);
    }

    /**
     * Runs the chain asynchronously from step {@code index}; at the end of the chain, invokes the operation. At the
     * end of the chain the operation's own stage is returned as is (so the innermost policy sees the operation's
     * own stage), which means this may throw or return {@code null} there: callers go through
     * {@link Stages#start(Supplier)}.
     *
     * @param index the step to run, or the number of steps to invoke the operation
     * @param operation the caller's operation
     * @param signal the signal the step should see
     * @param <T> the result type
     * @return the stage of the rest of the chain
     */
    public <T> CompletionStage<T> proceedAsync(int index, Supplier<? extends CompletionStage<T>> operation,
                                               CancellationSignal signal) {
        return index == steps.length ? operation.get() : steps[index].callAsync(this, index + 1, operation, signal);
    }

    /**
     * Returns the number of steps.
     *
     * @return the number of steps before the operation
     */
    public int size() {
        return steps.length;
    }
}
