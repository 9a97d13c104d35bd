package dev.bulwark.spring.internal;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * The interceptor of one bean instance's {@code @ConcurrencyLimit} methods: each call goes through its method's
 * throttle, or the class's one shared throttle. One instance per proxied bean instance, so that, as in Spring, every
 * instance has throttles of its own. Thread-safe: the throttles are made when the bean is proxied, the map below only
 * caches which one a proxy's method uses.
 */
final class ConcurrencyLimitInterceptor implements MethodInterceptor {

    private static final ConcurrencyLimitGate PASS =
            new ConcurrencyLimitGate("", ConcurrencyLimitGate.UNBOUNDED, false, null);

    private final Class<?> targetClass;
    /** The throttles of the methods annotated themselves, by the target class's method. */
    private final Map<Method, ConcurrencyLimitGate> byMethod;
    /** The throttle of an annotation on the class, shared by its other methods, or {@code null}. */
    private final ConcurrencyLimitGate classGate;
    private final Map<Method, ConcurrencyLimitGate> byInvokedMethod = new ConcurrentHashMap<>();

    ConcurrencyLimitInterceptor(Class<?> targetClass, Map<Method, ConcurrencyLimitGate> byMethod,
                                ConcurrencyLimitGate classGate) {
        this.targetClass = targetClass;
        this.byMethod = Map.copyOf(byMethod);
        this.classGate = classGate;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        ConcurrencyLimitGate gate = byInvokedMethod.computeIfAbsent(invocation.getMethod(), this::gateOf);
        // Spring names the proxy as the rejected target: its throttles belong to the proxy.
        Object instance = invocation instanceof ProxyMethodInvocation
                ? ((ProxyMethodInvocation) invocation).getProxy() : invocation.getThis();
        return gate.call(invocation, instance);
    }

    private ConcurrencyLimitGate gateOf(Method invoked) {
        ConcurrencyLimitGate own = byMethod.get(AopUtils.getMostSpecificMethod(invoked, targetClass));
        if (own != null) {
            return own;
        }
        return classGate != null ? classGate : PASS;
    }
}
