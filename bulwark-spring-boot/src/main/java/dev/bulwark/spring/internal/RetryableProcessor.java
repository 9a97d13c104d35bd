package dev.bulwark.spring.internal;

import dev.bulwark.Retry;
import dev.bulwark.spring.BulwarkPolicies;
import dev.bulwark.spring.BulwarkProperties;
import java.lang.annotation.Annotation;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Serves Spring Framework 7's {@code @Retryable} with Bulwark retries, in place of Spring's
 * {@code RetryAnnotationBeanPostProcessor} (which {@link SpringProcessorRemoval} removes). It advises the same
 * methods the same way (the same pointcut, before the bean's existing advisors, at Spring's order), and gives each
 * proxied bean instance an interceptor whose {@link Retry} policies are made when the bean is proxied, from the
 * annotation's attributes parsed as Spring parses them ({@code *String} attributes with placeholders and SpEL,
 * durations in {@code timeUnit} or with a unit of their own). The retry is named {@code <bean name>.<method name>} (or
 * {@code <bean name>} for an annotation on the class) and, for a singleton bean, registered in
 * {@link BulwarkPolicies}. Settings Spring would refuse at the first call fail the bean's creation. Thread-safe, like
 * every bean post-processor.
 */
public final class RetryableProcessor extends InstanceAdvisingProcessor implements ApplicationEventPublisherAware {

    private static final long serialVersionUID = 1L;

    private transient ApplicationEventPublisher events;

    /**
     * Creates the post-processor.
     *
     * @param policies the policies, which register the singleton beans' retries
     * @param properties the declarations, checked for a retry declared under the name of an annotated method
     */
    public RetryableProcessor(ObjectProvider<BulwarkPolicies> policies, ObjectProvider<BulwarkProperties> properties) {
        // @EnableResilientMethods's default order for Spring's retry post-processor.
        super(SpringResilience.retryableType(), Ordered.LOWEST_PRECEDENCE - 1, policies, properties);
    }

    /** Takes the publisher of Spring's {@code MethodRetryEvent}s. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.events = publisher;
    }

    @Override
    Advisor advisorFor(Class<?> beanClass, String beanName) {
        return advise(beanClass, beanName, "Retryable", "retry", SpringResilience::retryable,
                (name, identifier, annotation, where, shared) -> plan(name, annotation, where, shared),
                RetryableInterceptor::new);
    }

    private RetryablePlan plan(String name, MergedAnnotation<Annotation> annotation, String where, boolean shared) {
        String key = "bulwark.retries[" + name + "]";
        if (properties.getObject().retries().containsKey(name)) {
            throw new IllegalStateException(key + " must not be declared: the retry of @Retryable on " + where
                    + " takes every setting from the annotation");
        }
        TimeUnit unit = annotation.getEnum("timeUnit", TimeUnit.class);
        List<Class<? extends Throwable>> includes = types(annotation.getClassArray("includes"));
        List<Class<? extends Throwable>> excludes = types(annotation.getClassArray("excludes"));
        long maxRetries;
        Duration timeout;
        Duration delay;
        Duration jitter;
        double multiplier;
        Duration maxDelay;
        try {
            maxRetries = parseLong(annotation.getLong("maxRetries"), annotation.getString("maxRetriesString"));
            timeout = parseDuration(annotation.getLong("timeout"), annotation.getString("timeoutString"), unit);
            delay = parseDuration(annotation.getLong("delay"), annotation.getString("delayString"), unit);
            jitter = parseDuration(annotation.getLong("jitter"), annotation.getString("jitterString"), unit);
            multiplier = parseDouble(annotation.getDouble("multiplier"), annotation.getString("multiplierString"));
            maxDelay = parseDuration(annotation.getLong("maxDelay"), annotation.getString("maxDelayString"), unit);
        } catch (RuntimeException unparsable) {
            throw new IllegalStateException("@Retryable on " + where + ": " + unparsable.getMessage(), unparsable);
        }
        // Spring's RetryPolicy works in whole milliseconds.
        long delayMillis = millis(delay);
        long jitterMillis = millis(jitter);
        long maxDelayMillis = millis(maxDelay);
        String refused = maxRetries < 0 ? "maxRetries must not be negative but is " + maxRetries
                : timeout.isNegative() ? "timeout must not be negative but is " + timeout
                : delay.isNegative() ? "delay must not be negative but is " + delay
                : jitter.isNegative() ? "jitter must not be negative but is " + jitter
                : !(multiplier >= 1.0) || Double.isInfinite(multiplier)
                        ? "multiplier must be at least 1 and finite but is " + multiplier
                : maxDelay.isNegative() || maxDelay.isZero() ? "maxDelay must be positive but is " + maxDelay
                : jitterMillis > 0 && delayMillis == 0 ? "a jitter needs a delay of at least 1 ms (Spring's backoff "
                        + "divides by the delay and fails every call)" : null;
        if (refused != null) {
            throw new IllegalStateException("@Retryable on " + where + ": " + refused);
        }
        Class<?> predicateClass = annotation.getClass("predicate");
        Object predicate = predicateClass.getName().equals(SpringResilience.RETRY_PREDICATE) ? null
                : instantiate(predicateClass, where);
        Retry.Builder builder = Retry.builder().name(name).maxRetries((int) Math.min(maxRetries, Integer.MAX_VALUE))
                .handleIf(RetryablePlan::handles).retryClosedBulkheads(true);
        if (delayMillis > 0) {
            if (maxDelayMillis <= delayMillis) {
                // Spring caps every interval at maxDelay, jitter included: a fixed delay of maxDelay.
                builder.delay(Duration.ofMillis(maxDelayMillis));
            } else {
                builder.backoff(Duration.ofMillis(delayMillis), multiplier, Duration.ofMillis(maxDelayMillis));
                if (jitterMillis > 0) {
                    builder.jitter(Duration.ofMillis(jitterMillis));
                }
            }
        }
        Retry retry = builder.build();
        if (shared) {
            policies.getObject().register(retry);
        }
        MethodInterceptor spring = SpringResilience.springRetryInterceptor(includes, excludes,
                predicate != null ? predicate : allFailures(), maxRetries, timeout, delay, jitter, multiplier,
                maxDelay);
        if (spring instanceof ApplicationEventPublisherAware && events != null) {
            ((ApplicationEventPublisherAware) spring).setApplicationEventPublisher(events);
        }
        return new RetryablePlan(retry, includes, excludes, predicate, !timeout.isZero(), spring, events);
    }

    /** Spring's default predicate, {@code (method, failure) -> true}, as a {@code MethodRetryPredicate}. */
    private static Object allFailures() {
        Class<?> type = SpringResilience.type(SpringResilience.RETRY_PREDICATE);
        return java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, arguments) -> {
                    if (method.getName().equals("shouldRetry")) {
                        return Boolean.TRUE;
                    }
                    if (method.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, arguments);
                    }
                    return method.getName().equals("hashCode") ? System.identityHashCode(proxy)
                            : method.getName().equals("equals") ? proxy == arguments[0] : "all failures";
                });
    }

    /** As Spring: a bean of the factory (autowired), so that a predicate may take the application's beans. */
    private Object instantiate(Class<?> predicateClass, String where) {
        try {
            return beanFactory() != null ? beanFactory().createBean(predicateClass)
                    : ReflectionUtils.accessibleConstructor(predicateClass).newInstance();
        } catch (Throwable failed) {
            throw new IllegalStateException("@Retryable on " + where + ": failed to instantiate predicate class ["
                    + predicateClass + "]", failed);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Class<? extends Throwable>> types(Class<?>[] types) {
        return Arrays.asList((Class<? extends Throwable>[]) types);
    }

    private static long millis(Duration duration) {
        try {
            return duration.toMillis();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    // Spring's parsing: a non-blank *String attribute, once resolved, wins over the plain one.
    private long parseLong(long value, String text) {
        String resolved = resolved(text);
        return StringUtils.hasText(resolved) ? Long.parseLong(resolved) : value;
    }

    private double parseDouble(double value, String text) {
        String resolved = resolved(text);
        return StringUtils.hasText(resolved) ? Double.parseDouble(resolved) : value;
    }

    private Duration parseDuration(long value, String text, TimeUnit unit) {
        String resolved = resolved(text);
        if (StringUtils.hasText(resolved)) {
            return DurationFormatterUtils.detectAndParse(resolved,
                    DurationFormat.Unit.fromChronoUnit(unit.toChronoUnit()));
        }
        return Duration.of(value, unit.toChronoUnit());
    }
}
