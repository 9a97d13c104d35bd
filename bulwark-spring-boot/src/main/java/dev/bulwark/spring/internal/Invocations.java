package dev.bulwark.spring.internal;

import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;

/** Proceeds with an intercepted call; each attempt of a retry proceeds with its own clone of the invocation. */
final class Invocations {

    private Invocations() {
    }

    static Object proceed(MethodInvocation invocation) throws Throwable {
        if (invocation instanceof ProxyMethodInvocation) {
            // An invocation can proceed down the interceptor chain once; a retry needs a fresh one per attempt.
            return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
        }
        return invocation.proceed();
    }
}
