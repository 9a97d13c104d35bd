package dev.bulwark.spring.internal;

import dev.bulwark.Pipeline;
import dev.bulwark.Policy;
import dev.bulwark.spring.Bulkhead;
import dev.bulwark.spring.BulwarkPolicies;
import dev.bulwark.spring.FallbackMethodListener;
import dev.bulwark.spring.Retry;
import dev.bulwark.spring.Timeout;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * What the annotations ask of one method of one bean class: the policy names, outermost first, the kind of result,
 * and the fallback method. Built (and checked) when the bean is proxied; the policies themselves are looked up on the
 * first call, so that the advisor does not make the policy beans early. Thread-safe.
 */
final class MethodPlan {

    /** How the method delivers its result. */
    enum Kind { VALUE, COMPLETION_STAGE, MONO, FLUX }

    /** Reactor's {@code Mono} and {@code Flux}, or {@code null} without Reactor (named, so as not to load it). */
    private static final Class<?> MONO = reactorType("reactor.core.publisher.Mono");
    private static final Class<?> FLUX = reactorType("reactor.core.publisher.Flux");

    private final String retry;
    private final String timeout;
    private final String bulkhead;
    private final Kind kind;
    private final FallbackMethod fallback;
    private volatile Policy policy;

    private MethodPlan(String retry, String timeout, String bulkhead, Kind kind, FallbackMethod fallback) {
        this.retry = retry;
        this.timeout = timeout;
        this.bulkhead = bulkhead;
        this.kind = kind;
        this.fallback = fallback;
    }

    /**
     * Reads the annotations of {@code method} (or of its class) as seen in {@code targetClass}.
     *
     * @param fallbackListeners told of each use of the fallback method
     * @param reactorOperators whether bulwark-reactor is on the class path, needed by a {@code Mono} or {@code Flux}
     * @return the plan, or {@code null} when the method carries none of the annotations
     * @throws IllegalStateException when the annotations are inconsistent, the fallback method does not exist, or the
     *                               method returns a {@code Mono} or {@code Flux} without bulwark-reactor
     */
    static MethodPlan of(Method method, Class<?> targetClass,
                         ObjectProvider<FallbackMethodListener> fallbackListeners, boolean reactorOperators) {
        if (!Modifier.isPublic(method.getModifiers())) {
            requireNotAnnotated(method); // a class's annotations pass over its non-public methods
            return null;
        }
        Retry retry = find(method, targetClass, Retry.class);
        Timeout timeout = find(method, targetClass, Timeout.class);
        Bulkhead bulkhead = find(method, targetClass, Bulkhead.class);
        if (retry == null && timeout == null && bulkhead == null) {
            return null;
        }
        // Fallback method name -> the policy of the outermost annotation naming it (reported to the listeners).
        Map<String, String> fallbacks = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        if (retry != null) {
            names.add(requireName(retry.value(), "@Retry", method));
            addFallback(fallbacks, retry.fallbackMethod(), retry.value());
        }
        if (timeout != null) {
            names.add(requireName(timeout.value(), "@Timeout", method));
            addFallback(fallbacks, timeout.fallbackMethod(), timeout.value());
        }
        if (bulkhead != null) {
            names.add(requireName(bulkhead.value(), "@Bulkhead", method));
            addFallback(fallbacks, bulkhead.fallbackMethod(), bulkhead.value());
        }
        Kind kind = kindOf(method);
        if ((kind == Kind.MONO || kind == Kind.FLUX) && !reactorOperators) {
            // Run as a plain value, the policies would guard only the creation of the Mono or Flux, not what it
            // emits: fail as for an annotation that would not apply.
            String annotations = (retry != null ? "@Retry " : "") + (timeout != null ? "@Timeout " : "")
                    + (bulkhead != null ? "@Bulkhead " : "");
            throw new IllegalStateException(annotations + "on " + method + " returns a "
                    + (kind == Kind.MONO ? "Mono" : "Flux") + " but bulwark-reactor is not on the class path: add the "
                    + "dev.bulwark:bulwark-reactor dependency (without it the policies would guard only the creation "
                    + "of the " + (kind == Kind.MONO ? "Mono" : "Flux") + ", not its subscriptions)");
        }
        if (fallbacks.size() > 1) {
            throw new IllegalStateException(method + " names several fallback methods " + fallbacks.keySet()
                    + ": name one, on one of its annotations");
        }
        FallbackMethod fallback = null;
        if (!fallbacks.isEmpty()) {
            Map.Entry<String, String> named = fallbacks.entrySet().iterator().next();
            fallback = FallbackMethod.resolve(targetClass, method, named.getKey(), named.getValue(),
                    fallbackListeners);
        }
        return new MethodPlan(retry == null ? null : retry.value(), timeout == null ? null : timeout.value(),
                bulkhead == null ? null : bulkhead.value(), kind, fallback);
    }

    /**
     * Fails when a non-public method of {@code targetClass} (or of its superclasses) carries an annotation: as
     * documented, they apply to public methods only, and a class-based proxy would otherwise apply such an
     * annotation while an interface-based one silently ignored it. Checked once per bean class, on the first method
     * Spring asks about, so that the startup fails even when another method of the bean matched first.
     */
    static void requireNoAnnotatedNonPublicMethod(Class<?> targetClass) {
        ReflectionUtils.doWithMethods(targetClass, MethodPlan::requireNotAnnotated,
                method -> !Modifier.isPublic(method.getModifiers()) && !method.isBridge() && !method.isSynthetic());
    }

    private static void requireNotAnnotated(Method method) {
        for (Class<? extends java.lang.annotation.Annotation> type : List.of(Retry.class, Timeout.class,
                Bulkhead.class)) {
            if (AnnotatedElementUtils.hasAnnotation(method, type)) {
                throw new IllegalStateException("@" + type.getSimpleName() + " on " + method
                        + " applies to public methods only: make the method public or move the annotation");
            }
        }
    }

    private static <A extends java.lang.annotation.Annotation> A find(Method method, Class<?> targetClass,
                                                                     Class<A> type) {
        A onMethod = AnnotatedElementUtils.findMergedAnnotation(method, type);
        if (onMethod != null) {
            return onMethod;
        }
        A onClass = AnnotatedElementUtils.findMergedAnnotation(targetClass, type);
        return onClass != null ? onClass : AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), type);
    }

    private static String requireName(String name, String annotation, Method method) {
        if (name.isBlank()) {
            throw new IllegalStateException(annotation + " on " + method + " must name a policy but the name is blank");
        }
        return name;
    }

    private static void addFallback(Map<String, String> fallbacks, String name, String policyName) {
        if (!name.isEmpty()) {
            fallbacks.putIfAbsent(name, policyName);
        }
    }

    private static Kind kindOf(Method method) {
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type)) {
            return Kind.COMPLETION_STAGE;
        }
        if (MONO != null && MONO.isAssignableFrom(type)) {
            return Kind.MONO;
        }
        if (FLUX != null && FLUX.isAssignableFrom(type)) {
            return Kind.FLUX;
        }
        return Kind.VALUE;
    }

    private static Class<?> reactorType(String name) {
        ClassLoader loader = MethodPlan.class.getClassLoader();
        return ClassUtils.isPresent(name, loader) ? ClassUtils.resolveClassName(name, loader) : null;
    }

    Kind kind() {
        return kind;
    }

    FallbackMethod fallback() {
        return fallback;
    }

    /** The policies, outermost first: {@code Pipeline.of(retry, timeout, bulkhead)} for those present. */
    Policy policy(BulwarkPolicies policies) {
        Policy resolved = policy;
        if (resolved == null) {
            List<Policy> layers = new ArrayList<>(3);
            if (retry != null) {
                layers.add(policies.retry(retry));
            }
            if (timeout != null) {
                layers.add(policies.timeout(timeout));
            }
            if (bulkhead != null) {
                layers.add(policies.bulkhead(bulkhead));
            }
            resolved = layers.size() == 1 ? layers.get(0) : Pipeline.of(layers.toArray(new Policy[0]));
            policy = resolved;
        }
        return resolved;
    }
}
