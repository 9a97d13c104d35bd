package dev.bulwark.reactor.internal;

import dev.bulwark.Policy;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;

/** A {@link Flux} run under a policy; each subscriber gets its own trip through the policy. */
final class FluxPolicy<T> extends FluxOperator<T, T> {

    private final Policy policy;

    FluxPolicy(Flux<? extends T> source, Policy policy) {
        super(source);
        this.policy = policy;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        new PolicySubscription<T>(actual, source, policy).start();
    }
}
