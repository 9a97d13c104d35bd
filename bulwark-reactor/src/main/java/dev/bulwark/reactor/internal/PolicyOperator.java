package dev.bulwark.reactor.internal;

import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Applies a policy to a publisher: a {@link Mono} stays a {@code Mono}, anything else becomes a {@link Flux}.
 * Immutable and thread-safe; one instance may be applied to any number of publishers.
 *
 * @param <T> the element type
 */
public final class PolicyOperator<T> implements UnaryOperator<Publisher<T>> {

    private final Policy policy;

    /**
     * Creates the operator.
     *
     * @param policy the policy
     */
    public PolicyOperator(Policy policy) {
        this.policy = policy;
    }

    @Override
    public Publisher<T> apply(Publisher<T> source) {
        if (policy instanceof Pipeline) {
            // Nested, innermost first: each policy becomes its own operator, so that an outer policy giving up on
            // an attempt (a timeout) cancels the inner subscription, and an inner bulkhead frees its slot at once.
            List<Policy> layers = new ArrayList<>();
            flatten((Pipeline) policy, layers);
            Publisher<T> nested = source;
            for (int i = layers.size() - 1; i >= 0; i--) {
                nested = wrap(nested, layers.get(i));
            }
            return nested;
        }
        return wrap(source, policy);
    }

    private static <T> Publisher<T> wrap(Publisher<T> source, Policy policy) {
        if (source instanceof Mono) {
            return new MonoPolicy<>((Mono<T>) source, policy);
        }
        return new FluxPolicy<>(Flux.from(source), policy);
    }

    private static void flatten(Pipeline pipeline, List<Policy> layers) {
        for (Policy policy : pipeline.policies()) {
            if (policy instanceof Pipeline) {
                flatten((Pipeline) policy, layers);
            } else {
                layers.add(policy);
            }
        }
    }

    @Override
    public String toString() {
        return "BulwarkOperators(" + policy + ")";
    }
}
