package dev.bulwark.spring.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.util.concurrent.RejectedExecutionException;
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
    private static final String REJECTED = "org.springframework.resilience.InvocationRejectedException";
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
