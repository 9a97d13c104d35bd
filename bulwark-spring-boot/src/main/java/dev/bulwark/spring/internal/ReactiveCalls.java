package dev.bulwark.spring.internal;

import dev.bulwark.Policy;
import dev.bulwark.reactor.BulwarkOperators;
import org.aopalliance.intercept.MethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs methods that return a {@code Mono} or {@code Flux} under a policy with Bulwark's Reactor operators: the method
 * is called again for every subscription (and every retry), and waiting for a slot never blocks a thread. Loaded only
 * when Reactor and bulwark-reactor are on the class path.
 */
final class ReactiveCalls {

    private ReactiveCalls() {
    }

    @SuppressWarnings("unchecked")
    static Mono<Object> mono(MethodInvocation invocation, Policy policy, FallbackMethod fallback) {
        Mono<Object> guarded = Mono.defer(() -> {
            try {
                return (Mono<Object>) Invocations.proceed(invocation);
            } catch (Throwable failure) {
                return Mono.error(failure);
            }
        }).transformDeferred(BulwarkOperators.policy(policy));
        if (fallback == null) {
            return guarded;
        }
        return guarded.onErrorResume(fallback::handles, failure -> {
            try {
                return (Mono<Object>) fallback.invoke(invocation.getThis(), invocation.getArguments(), failure);
            } catch (Throwable fallbackFailure) {
                return Mono.error(fallbackFailure);
            }
        });
    }

    @SuppressWarnings("unchecked")
    static Flux<Object> flux(MethodInvocation invocation, Policy policy, FallbackMethod fallback) {
        Flux<Object> guarded = Flux.defer(() -> {
            try {
                return (Flux<Object>) Invocations.proceed(invocation);
            } catch (Throwable failure) {
                return Flux.error(failure);
            }
        }).transformDeferred(BulwarkOperators.policy(policy));
        if (fallback == null) {
            return guarded;
        }
        return guarded.onErrorResume(fallback::handles, failure -> {
            try {
                return (Flux<Object>) fallback.invoke(invocation.getThis(), invocation.getArguments(), failure);
            } catch (Throwable fallbackFailure) {
                return Flux.error(fallbackFailure);
            }
        });
    }
}
