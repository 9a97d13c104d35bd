package dev.bulwark;

import dev.bulwark.internal.Chain;
import dev.bulwark.internal.ChainStep;
import dev.bulwark.internal.StepSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Policies composed into one: {@code Pipeline.of(retry, timeout, bulkhead)} means the retry wraps the timeout,
 * which wraps the bulkhead, which wraps the operation. Enter order is outermost first; exit order the reverse.
 *
 * <p>Each policy hands the next one a cancellation signal derived from its own: cancelling the caller's signal,
 * or an outer timeout firing, reaches an inner bulkhead waiter at once, and it leaves the queue. A pipeline is a
 * {@link Policy}, so pipelines nest; a nested pipeline behaves exactly as if its policies were listed in its place.
 * Policies written outside Bulwark take part too (they pass their caller's signal inward unchanged).
 *
 * <p>Immutable and thread-safe. Calling through a pipeline of Bulwark's policies allocates nothing beyond what the
 * policies themselves need: a bulkhead and a retry that succeeds at once need nothing.
 */
// StepSource and ChainStep are not exported on purpose: the contract binds Bulwark's own policies only.
@SuppressWarnings("exports")
public final class Pipeline implements Policy, StepSource {

    private final List<Policy> policies;
    private final ChainStep[] steps;
    private final Chain chain;
    private final ChainStep first;

    private Pipeline(List<Policy> policies, ChainStep[] steps) {
        this.policies = policies;
        this.steps = steps;
        this.chain = new Chain(steps);
        this.first = steps[0];
    }

    /**
     * Composes policies, outermost first.
     *
     * @param outermostFirst the policies; the first wraps all the others
     * @return the pipeline
     * @throws NullPointerException when the array or one of the policies is {@code null}
     * @throws IllegalArgumentException when no policy is given
     */
    public static Pipeline of(Policy... outermostFirst) {
        Objects.requireNonNull(outermostFirst, "policies");
        if (outermostFirst.length == 0) {
            throw new IllegalArgumentException("policies must not be empty: a pipeline needs at least one policy");
        }
        List<Policy> policies = new ArrayList<>(outermostFirst.length);
        List<ChainStep> steps = new ArrayList<>(outermostFirst.length);
        for (int i = 0; i < outermostFirst.length; i++) {
            Policy policy = Objects.requireNonNull(outermostFirst[i], "policies[" + i + "]");
            policies.add(policy);
            StepSource.of(policy).appendStepsTo(steps);
        }
        return new Pipeline(List.copyOf(policies), steps.toArray(new ChainStep[0]));
    }

    /**
     * Appends this pipeline's steps to another pipeline's chain, so a nested pipeline runs exactly as if its
     * policies were listed in its place. Part of Bulwark's internal composition contract
     * ({@code dev.bulwark.internal.StepSource}, not exported): applications compose with {@link #of(Policy...)}
     * instead.
     *
     * @param steps the chain being assembled
     */
    @Override
    public void appendStepsTo(List<ChainStep> steps) {
        Collections.addAll(steps, this.steps);
    }

    /**
     * Returns the policies as given, outermost first (a nested pipeline appears as itself).
     *
     * @return an unmodifiable list
     */
    public List<Policy> policies() {
        return policies;
    }

    /**
     * Runs {@code operation} through every policy, outermost first.
     *
     * @throws X the operation's own exception, untouched, unless a policy replaced it with its own
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T extends @Nullable Object, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                                    CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return first.call(chain, 1, operation, signal);
    }

    /**
     * Runs an asynchronous operation through every policy, outermost first. Never blocks.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T extends @Nullable Object> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return first.callAsync(chain, 1, operation, signal);
    }

    @Override
    public String toString() {
        return "Pipeline" + policies;
    }
}
