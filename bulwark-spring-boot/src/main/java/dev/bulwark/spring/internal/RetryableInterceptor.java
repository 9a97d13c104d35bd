package dev.bulwark.spring.internal;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * The interceptor of one bean instance's {@code @Retryable} methods: each call goes through its method's plan, or
 * the class's plan. Thread-safe: the plans are made when the bean is proxied, the map below only caches which one a
 * proxy's method uses.
 */
final class RetryableInterceptor implements MethodInterceptor {

    private final Class<?> targetClass;
    private final Map<Method, RetryablePlan> byMethod;
    private final RetryablePlan classPlan;
    private final Map<Method, Optional<RetryablePlan>> byInvokedMethod = new ConcurrentHashMap<>();

    RetryableInterceptor(Class<?> targetClass, Map<Method, RetryablePlan> byMethod, RetryablePlan classPlan) {
        this.targetClass = targetClass;
        this.byMethod = Map.copyOf(byMethod);
        this.classPlan = classPlan;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Optional<RetryablePlan> plan = byInvokedMethod.computeIfAbsent(invocation.getMethod(), this::planOf);
        return plan.isPresent() ? plan.get().invoke(invocation) : invocation.proceed();
    }

    private Optional<RetryablePlan> planOf(Method invoked) {
        // Spring's precedence: the method's own annotation, else the class's.
        RetryablePlan own = byMethod.get(AopUtils.getMostSpecificMethod(invoked, targetClass));
        return Optional.ofNullable(own != null ? own : classPlan);
    }
}
