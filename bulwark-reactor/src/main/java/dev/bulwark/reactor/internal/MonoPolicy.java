package dev.bulwark.reactor.internal;

import dev.bulwark.Policy;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoOperator;

/** A {@link Mono} run under a policy; each subscriber gets its own trip through the policy. */
final class MonoPolicy<T> extends MonoOperator<T, T> {

    private final Policy policy;

    MonoPolicy(Mono<? extends T> source, Policy policy) {
        super(source);
        this.policy = policy;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        new PolicySubscription<T>(actual, source, policy).start();
    }
}
