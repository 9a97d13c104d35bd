package dev.bulwark.spring.internal;

import dev.bulwark.Policy;
import dev.bulwark.internal.util.Stages;
import dev.bulwark.spring.BulwarkPolicies;
import dev.bulwark.spring.FallbackMethodListener;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.MethodClassKey;
import org.springframework.util.ClassUtils;

/**
 * Runs an annotated method under its policies and, when a handled failure ends the call, its fallback method. The
 * method's own exceptions reach the caller untouched. Thread-safe: plans are cached per method and bean class.
 */
public final class BulwarkMethodInterceptor implements MethodInterceptor {

    private final ObjectProvider<BulwarkPolicies> policies;
    private final ObjectProvider<FallbackMethodListener> fallbackListeners;
    private final Map<MethodClassKey, MethodPlan> plans = new ConcurrentHashMap<>();
    /** Bean classes whose non-public methods were found free of annotations. */
    private final Set<Class<?>> checkedClasses = ConcurrentHashMap.newKeySet();
    /** Whether bulwark-reactor is on the class path: here, and for the application's bean classes. */
    private volatile boolean reactorOperators = operatorsPresent(BulwarkMethodInterceptor.class.getClassLoader());

    /**
     * Creates the interceptor.
     *
     * @param policies where the named policies come from, looked up on the first call
     * @param fallbackListeners told of each fallback method taken, looked up each time
     */
    public BulwarkMethodInterceptor(ObjectProvider<BulwarkPolicies> policies,
                                    ObjectProvider<FallbackMethodListener> fallbackListeners) {
        this.policies = policies;
        this.fallbackListeners = fallbackListeners;
    }

    /**
     * Looks for bulwark-reactor with the application's bean class loader too (Spring passes it to the advisor before
     * any bean is proxied): without it, a {@code Mono} or {@code Flux} method fails its bean's creation.
     */
    void beanClassLoader(ClassLoader loader) {
        reactorOperators = operatorsPresent(BulwarkMethodInterceptor.class.getClassLoader())
                && operatorsPresent(loader);
    }

    private static boolean operatorsPresent(ClassLoader loader) {
        return ClassUtils.isPresent("dev.bulwark.reactor.BulwarkOperators", loader);
    }

    /** Whether the method carries an annotation; builds and checks its plan. */
    boolean matches(Method method, Class<?> targetClass) {
        if (!checkedClasses.contains(targetClass)) {
            MethodPlan.requireNoAnnotatedNonPublicMethod(targetClass);
            checkedClasses.add(targetClass);
        }
        return plan(method, targetClass) != null;
    }

    private MethodPlan plan(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        MethodClassKey key = new MethodClassKey(specific, targetClass);
        MethodPlan plan = plans.get(key);
        if (plan == null && !plans.containsKey(key)) {
            plan = MethodPlan.of(specific, targetClass, fallbackListeners, reactorOperators);
            if (plan != null) {
                plans.putIfAbsent(key, plan);
            }
        }
        return plan;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Class<?> targetClass = invocation.getThis() == null ? invocation.getMethod().getDeclaringClass()
                : AopUtils.getTargetClass(invocation.getThis());
        MethodPlan plan = plan(invocation.getMethod(), targetClass);
        if (plan == null) {
            return invocation.proceed();
        }
        Policy policy = plan.policy(policies.getObject());
        switch (plan.kind()) {
            case COMPLETION_STAGE:
                return callAsync(invocation, policy, plan.fallback());
            case MONO:
                return ReactiveCalls.mono(invocation, policy, plan.fallback());
            case FLUX:
                return ReactiveCalls.flux(invocation, policy, plan.fallback());
            default:
                return call(invocation, policy, plan.fallback());
        }
    }

    private static Object call(MethodInvocation invocation, Policy policy, FallbackMethod fallback) throws Throwable {
        try {
            return policy.call(() -> Invocations.proceed(invocation));
        } catch (Throwable failure) {
            if (fallback != null && fallback.handles(failure)) {
                return fallback.invoke(invocation.getThis(), invocation.getArguments(), failure);
            }
            throw failure;
        }
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<Object> callAsync(MethodInvocation invocation, Policy policy,
                                                       FallbackMethod fallback) {
        CompletableFuture<Object> result = policy.callAsync(() -> {
            try {
                return (CompletionStage<Object>) Invocations.proceed(invocation);
            } catch (Throwable failure) {
                return CompletableFuture.failedFuture(failure);
            }
        });
        if (fallback == null) {
            return result;
        }
        CompletableFuture<Object> handled = result.exceptionallyCompose(stageFailure -> {
            Throwable failure = Stages.unwrap(stageFailure);
            if (!fallback.handles(failure)) {
                return CompletableFuture.failedFuture(failure);
            }
            try {
                return (CompletionStage<Object>) fallback.invoke(invocation.getThis(), invocation.getArguments(),
                        failure);
            } catch (Throwable fallbackFailure) {
                return CompletableFuture.failedFuture(fallbackFailure);
            }
        });
        // A dependent future does not pass its cancellation back to its source: forward it, so that cancelling (or
        // completing) the caller's future ends the policies' call as it does without a fallback method. Once
        // result is done (the usual way for handled to complete), cancelling it does nothing.
        handled.whenComplete((value, failure) -> result.cancel(true));
        return handled;
    }
}
