package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import dev.bulwark.ThrowingSupplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Lets a policy written outside Bulwark take part in a pipeline: the rest of the chain becomes its operation.
 * Such a policy can only pass its own caller's signal inward.
 */
final class ForeignPolicyStep implements ChainStep {

    private final Policy policy;

    /**
     * Wraps a policy.
     *
     * @param policy any policy
     */
    public ForeignPolicyStep(Policy policy) {
        this.policy = policy;
    }

    @Override
    public <T, X extends Throwable> T call(Chain chain, int next, ThrowingSupplier<? extends T, X> operation,
                                           CancellationSignal signal) throws X {
        return policy.call(() -> chain.proceed(next, operation, signal), signal);
    }

    @Override
    public <T> CompletableFuture<T> callAsync(Chain chain, int next, Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        return policy.callAsync(() -> chain.proceedAsync(next, operation, signal), signal);
    }
}
