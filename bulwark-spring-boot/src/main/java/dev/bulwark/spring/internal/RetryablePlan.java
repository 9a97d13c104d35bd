package dev.bulwark.spring.internal;

import dev.bulwark.Retry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How the calls of one {@code @Retryable} (on a method, or on a class for its methods) of one bean instance are
 * retried: through a Bulwark {@link Retry} built from the annotation, with Spring's choice of which failures to retry,
 * Spring's {@code MethodRetryEvent}s and Spring's outcome; or, for the calls Bulwark leaves to Spring (a reactive
 * return type, or a {@code timeout}), through Spring's own {@code SimpleRetryInterceptor} of the same settings.
 * Thread-safe: immutable; each call's state is its own.
 */
final class RetryablePlan {

    /**
     * Spring's verdict on the failure an attempt is throwing, read by the retry's predicate on the same thread right
     * after: Spring's predicate takes the invoked method, which a {@link Retry}'s predicate does not see.
     */
    private static final ThreadLocal<Boolean> VERDICT = new ThreadLocal<>();
    private static final boolean REACTIVE = ClassUtils.isPresent("org.reactivestreams.Publisher",
            RetryablePlan.class.getClassLoader());

    private final Retry retry;
    private final List<Class<? extends Throwable>> includes;
    private final List<Class<? extends Throwable>> excludes;
    private final Object predicate;
    private final Method shouldRetry;
    private final boolean springServesAll;
    private final MethodInterceptor spring;
    private final ApplicationEventPublisher events;

    /**
     * @param retry the Bulwark retry (its predicate must be {@link #handles})
     * @param includes {@code includes} (or {@code value})
     * @param excludes {@code excludes}
     * @param predicate the {@code MethodRetryPredicate} instance, or {@code null} for Spring's default (all)
     * @param springServesAll whether every call goes to Spring's interceptor (a {@code timeout} is set)
     * @param spring Spring's interceptor of the same settings
     * @param events where {@code MethodRetryEvent}s go, or {@code null}
     */
    RetryablePlan(Retry retry, List<Class<? extends Throwable>> includes, List<Class<? extends Throwable>> excludes,
                  Object predicate, boolean springServesAll, MethodInterceptor spring,
                  ApplicationEventPublisher events) {
        this.retry = retry;
        this.includes = List.copyOf(includes);
        this.excludes = List.copyOf(excludes);
        this.predicate = predicate;
        try {
            this.shouldRetry = predicate == null ? null : SpringResilience.type(SpringResilience.RETRY_PREDICATE)
                    .getMethod("shouldRetry", Method.class, Throwable.class);
        } catch (NoSuchMethodException absent) {
            throw new IllegalStateException(SpringResilience.RETRY_PREDICATE + ".shouldRetry not found", absent);
        }
        this.springServesAll = springServesAll;
        this.spring = spring;
        this.events = events;
    }

    /** The retry's predicate: Spring's verdict on the failure the attempt on this thread just threw. */
    static boolean handles(Throwable failure) {
        return Boolean.TRUE.equals(VERDICT.get());
    }

    Retry retry() {
        return retry;
    }

    Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        if (springServesAll || isReactive(method)) {
            return spring.invoke(invocation);
        }
        Object target = invocation.getThis();
        List<Throwable> failures = new ArrayList<>(4);
        try {
            return retry.call(() -> attempt(invocation, method, failures));
        } catch (Throwable thrown) {
            if (failures.isEmpty()) {
                throw thrown;
            }
            Throwable last = failures.get(failures.size() - 1);
            String name = ClassUtils.getQualifiedMethodName(method, target != null ? target.getClass() : null);
            String message;
            if (thrown == last) {
                message = "Retry policy for operation '" + name + "' exhausted; aborting execution";
            } else if (thrown instanceof CancellationException
                    && thrown.getCause() instanceof InterruptedException) {
                // Interrupted during a delay (the interrupt status is kept): Spring ends with the last failure.
                message = "Interrupted during back-off for retryable operation '" + name + "'; aborting execution";
            } else {
                throw thrown;
            }
            Exception ended = SpringResilience.retryException(message, last);
            for (int i = 0; i < failures.size() - 1; i++) {
                ended.addSuppressed(failures.get(i));
            }
            publish(invocation, ended, true);
            throw last;
        }
    }

    private Object attempt(MethodInvocation invocation, Method method, List<Throwable> failures) throws Throwable {
        try {
            return invocation instanceof ProxyMethodInvocation
                    ? ((ProxyMethodInvocation) invocation).invocableClone().proceed() : invocation.proceed();
        } catch (Throwable failure) {
            failures.add(failure);
            publish(invocation, failure, false);
            // Decided here, where the invoked method is known, as Spring decides it: the types (and their causes)
            // first, the predicate only for a failure they let through. A predicate that throws ends the call with
            // its exception, unretried, as in Spring.
            VERDICT.set(Boolean.FALSE);
            boolean retryable = matches(failure) && predicate(method, failure);
            VERDICT.set(retryable);
            throw failure;
        }
    }

    /** Spring's {@code ExceptionTypeFilter.match(failure, true)}: excludes first, each type searched along causes. */
    private boolean matches(Throwable failure) {
        if (!excludes.isEmpty() && anyAlongCauses(failure, excludes)) {
            return false;
        }
        return includes.isEmpty() || anyAlongCauses(failure, includes);
    }

    private static boolean anyAlongCauses(Throwable failure, List<Class<? extends Throwable>> types) {
        for (Class<? extends Throwable> type : types) {
            for (Throwable current = failure; current != null; current = current.getCause()) {
                if (type.isInstance(current)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean predicate(Method method, Throwable failure) throws Throwable {
        if (predicate == null) {
            return true;
        }
        try {
            return (Boolean) shouldRetry.invoke(predicate, method, failure);
        } catch (InvocationTargetException thrown) {
            throw thrown.getCause();
        }
    }

    private void publish(MethodInvocation invocation, Throwable failure, boolean aborted) {
        if (events != null) {
            events.publishEvent(SpringResilience.retryEvent(invocation, failure, aborted));
        }
    }

    /** Spring's test: a return type with a reactive adapter, but not a {@code Future}. */
    private static boolean isReactive(Method method) {
        Class<?> type = method.getReturnType();
        return REACTIVE && !Future.class.isAssignableFrom(type)
                && ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
    }
}
