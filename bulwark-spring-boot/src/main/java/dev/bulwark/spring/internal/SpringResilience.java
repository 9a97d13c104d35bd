package dev.bulwark.spring.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.RejectedExecutionException;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.RepeatableContainers;
import org.springframework.util.ClassUtils;

/**
 * Spring Framework 7's resilience types, named and never linked: this module compiles against Spring 6 (Boot 3.5),
 * where they do not exist. Only classes that the Spring 7 auto-configuration loads use this one.
 */
final class SpringResilience {

    /** {@code org.springframework.resilience.annotation.ConcurrencyLimit}. */
    static final String CONCURRENCY_LIMIT = "org.springframework.resilience.annotation.ConcurrencyLimit";
    /** Spring's post-processor for {@code @ConcurrencyLimit}, which Bulwark replaces. */
    static final String CONCURRENCY_LIMIT_PROCESSOR =
            "org.springframework.resilience.annotation.ConcurrencyLimitBeanPostProcessor";
    /** {@code org.springframework.resilience.annotation.Retryable}. */
    static final String RETRYABLE = "org.springframework.resilience.annotation.Retryable";
    /** Spring's post-processor for {@code @Retryable}, which Bulwark replaces. */
    static final String RETRY_PROCESSOR = "org.springframework.resilience.annotation.RetryAnnotationBeanPostProcessor";
    /** Spring's {@code MethodRetryPredicate}, the type of {@code @Retryable(predicate = ...)}. */
    static final String RETRY_PREDICATE = "org.springframework.resilience.retry.MethodRetryPredicate";
    private static final String REJECTED = "org.springframework.resilience.InvocationRejectedException";
    private static final String RETRY_EVENT = "org.springframework.resilience.retry.MethodRetryEvent";
    private static final String RETRY_EXCEPTION = "org.springframework.core.retry.RetryException";
    private static final String RETRY_SPEC = "org.springframework.resilience.retry.MethodRetrySpec";
    private static final String SIMPLE_RETRY_INTERCEPTOR =
            "org.springframework.resilience.retry.SimpleRetryInterceptor";
    private static volatile Constructor<?> rejectedConstructor;

    private SpringResilience() {
    }

    /** Loads a Spring 7 class by name. */
    static Class<?> type(String name) {
        return ClassUtils.resolveClassName(name, SpringResilience.class.getClassLoader());
    }

    /** The annotation type {@code @ConcurrencyLimit}. */
    @SuppressWarnings("unchecked")
    static Class<? extends Annotation> concurrencyLimitType() {
        return (Class<? extends Annotation>) type(CONCURRENCY_LIMIT);
    }

    /**
     * {@code @ConcurrencyLimit} on {@code element}, found as Spring's own post-processor finds it
     * ({@code AnnotatedElementUtils.findMergedAnnotation}: the type hierarchy, no repeatable containers).
     */
    static MergedAnnotation<Annotation> concurrencyLimit(AnnotatedElement element) {
        return MergedAnnotations.from(element, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY,
                RepeatableContainers.none()).get(CONCURRENCY_LIMIT);
    }

    /** The annotation type {@code @Retryable}. */
    @SuppressWarnings("unchecked")
    static Class<? extends Annotation> retryableType() {
        return (Class<? extends Annotation>) type(RETRYABLE);
    }

    /** {@code @Retryable} on {@code element}, found as Spring's post-processor finds it (see above). */
    static MergedAnnotation<Annotation> retryable(AnnotatedElement element) {
        return MergedAnnotations.from(element, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY,
                RepeatableContainers.none()).get(RETRYABLE);
    }

    /**
     * Spring's {@code MethodRetryEvent}, an {@code ApplicationEvent}.
     *
     * @param invocation the method invocation
     * @param failure an attempt's failure, or the {@code RetryException} that ended the retrying
     * @param aborted whether the retrying ended
     */
    static Object retryEvent(MethodInvocation invocation, Throwable failure, boolean aborted) {
        return construct(RETRY_EVENT, new Class<?>[] {MethodInvocation.class, Throwable.class, boolean.class},
                invocation, failure, aborted);
    }

    /** Spring's {@code RetryException(message, cause)}, with which Spring's interceptor reports the end. */
    static Exception retryException(String message, Throwable cause) {
        return (Exception) construct(RETRY_EXCEPTION, new Class<?>[] {String.class, Throwable.class}, message, cause);
    }

    /**
     * Spring's own {@code SimpleRetryInterceptor} for a {@code MethodRetrySpec} of these values: the calls Bulwark
     * leaves to Spring (reactive return types, a timeout) go through it.
     */
    static MethodInterceptor springRetryInterceptor(Collection<Class<? extends Throwable>> includes,
                                                    Collection<Class<? extends Throwable>> excludes,
                                                    Object predicate, long maxRetries, Duration timeout,
                                                    Duration delay, Duration jitter, double multiplier,
                                                    Duration maxDelay) {
        Object spec = construct(RETRY_SPEC, new Class<?>[] {Collection.class, Collection.class,
            type(RETRY_PREDICATE), long.class, Duration.class, Duration.class, Duration.class, double.class,
            Duration.class}, includes, excludes, predicate, maxRetries, timeout, delay, jitter, multiplier, maxDelay);
        return (MethodInterceptor) construct(SIMPLE_RETRY_INTERCEPTOR, new Class<?>[] {type(RETRY_SPEC)}, spec);
    }

    private static Object construct(String typeName, Class<?>[] parameters, Object... arguments) {
        try {
            return type(typeName).getConstructor(parameters).newInstance(arguments);
        } catch (InvocationTargetException failed) {
            Throwable cause = failed.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException("cannot create " + typeName, cause);
        } catch (ReflectiveOperationException unexpected) {
            throw new IllegalStateException("cannot create " + typeName, unexpected);
        }
    }

    /**
     * Spring's {@code InvocationRejectedException}, which callers of a {@code @ConcurrencyLimit} method expect.
     *
     * @param message the detail message
     * @param target the instance (proxy) that was about to be invoked
     * @param cause why, or {@code null}
     */
    static RejectedExecutionException rejected(String message, Object target, Throwable cause) {
        RejectedExecutionException rejected;
        try {
            rejected = (RejectedExecutionException) rejectedConstructor().newInstance(message, target);
        } catch (ReflectiveOperationException unexpected) {
            throw new IllegalStateException("cannot create " + REJECTED, unexpected);
        }
        if (cause != null) {
            rejected.initCause(cause);
        }
        return rejected;
    }

    /**
     * Spring's constructor, resolved on first use and not in a static initialiser, so that this class initialises on
     * Spring 6 too. Racing first uses resolve the same constructor; the last write wins, harmlessly.
     */
    private static Constructor<?> rejectedConstructor() {
        Constructor<?> constructor = rejectedConstructor;
        if (constructor == null) {
            try {
                constructor = type(REJECTED).getConstructor(String.class, Object.class);
            } catch (NoSuchMethodException absent) {
                throw new IllegalStateException(REJECTED + "(String, Object) not found", absent);
            }
            rejectedConstructor = constructor;
        }
        return constructor;
    }
}
