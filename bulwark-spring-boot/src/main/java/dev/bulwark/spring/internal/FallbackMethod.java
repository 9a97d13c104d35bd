package dev.bulwark.spring.internal;

import dev.bulwark.internal.util.ListenerFailureLog;
import dev.bulwark.spring.FallbackMethodListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ReflectionUtils;

/**
 * A bean's fallback method, named by an annotation and checked when the bean is proxied: it takes the annotated
 * method's parameters, optionally followed by the failure, and returns what the annotated method returns. Overloads
 * of that name share the work: a failure goes to the overload whose failure parameter has the most specific type the
 * failure is an instance of, and one that none of them takes to the overload without a failure parameter, if any
 * (see {@link #handles}). Each time one is taken, the {@link FallbackMethodListener} beans are told first (that is how
 * {@code bulwark.fallback.used} counts annotation fallbacks). Immutable, apart from each listener's
 * {@link ListenerFailureLog} (the core's rule for a listener that throws: its first failure at WARNING, later ones at
 * DEBUG), made when it first fails.
 */
final class FallbackMethod {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.spring");

    /** The overloads taking a failure, by their failure parameter's type, each type once. */
    private final Map<Class<?>, Method> withFailure;
    /** The overload without a failure parameter, or {@code null}. */
    private final Method withoutFailure;
    /** The annotated method, the policy whose annotation names this fallback, and who is told of each use. */
    private final Method annotated;
    private final String policyName;
    private final ObjectProvider<FallbackMethodListener> listeners;
    /** How each listener that failed is logged: once at WARNING, not once per call. */
    private final Map<FallbackMethodListener, ListenerFailureLog> failureLogs = new ConcurrentHashMap<>();

    private FallbackMethod(Map<Class<?>, Method> withFailure, Method withoutFailure, Method annotated,
                           String policyName, ObjectProvider<FallbackMethodListener> listeners) {
        this.withFailure = withFailure;
        this.withoutFailure = withoutFailure;
        this.annotated = annotated;
        this.policyName = policyName;
        this.listeners = listeners;
    }

    /**
     * Finds the fallback methods called {@code name} for {@code annotated} in {@code targetClass}: every overload of
     * a fitting signature. Where the class and a superclass both declare one with the same parameters, the class's
     * is kept (a call dispatches to the override anyway).
     *
     * @param policyName the policy whose annotation names it, reported to the listeners
     * @param listeners told of each use, looked up at each use
     * @throws IllegalStateException when there is none of a fitting signature
     */
    static FallbackMethod resolve(Class<?> targetClass, Method annotated, String name, String policyName,
                                  ObjectProvider<FallbackMethodListener> listeners) {
        Class<?>[] parameters = annotated.getParameterTypes();
        Map<Class<?>, Method> withFailure = new LinkedHashMap<>();
        List<Method> withoutFailure = new ArrayList<>();
        // The class's own methods come before its superclasses'.
        ReflectionUtils.doWithMethods(targetClass, candidate -> {
            if (!candidate.getName().equals(name) || Modifier.isStatic(candidate.getModifiers())
                    || !returns(candidate, annotated)) {
                return;
            }
            Class<?>[] types = candidate.getParameterTypes();
            if (Arrays.equals(types, parameters)) {
                withoutFailure.add(candidate);
            } else if (types.length == parameters.length + 1
                    && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
                    && Throwable.class.isAssignableFrom(types[parameters.length])) {
                withFailure.putIfAbsent(types[parameters.length], candidate);
            }
        });
        if (withFailure.isEmpty() && withoutFailure.isEmpty()) {
            String arguments = Arrays.stream(parameters).map(Class::getSimpleName).reduce((a, b) -> a + ", " + b)
                    .orElse("");
            throw new IllegalStateException("Fallback method '" + name + "' of " + annotated + " not found: "
                    + targetClass.getName() + " needs a method " + annotated.getReturnType().getSimpleName() + " "
                    + name + "(" + arguments + ") or " + annotated.getReturnType().getSimpleName() + " " + name + "("
                    + arguments + (arguments.isEmpty() ? "" : ", ") + "SomeException failure)");
        }
        withFailure.values().forEach(ReflectionUtils::makeAccessible);
        Method plain = withoutFailure.isEmpty() ? null : withoutFailure.get(0);
        if (plain != null) {
            ReflectionUtils.makeAccessible(plain);
        }
        return new FallbackMethod(Collections.unmodifiableMap(withFailure), plain, annotated, policyName, listeners);
    }

    private static boolean returns(Method candidate, Method annotated) {
        Class<?> expected = annotated.getReturnType();
        return expected == void.class ? candidate.getReturnType() == void.class
                : expected.isAssignableFrom(candidate.getReturnType());
    }

    /**
     * Whether this fallback replaces {@code failure}: never an error or a cancellation. Otherwise, when an overload's
     * failure parameter type is one {@code failure} is an instance of, yes (that overload takes it, an interrupt
     * included, as a programmatic {@code Fallback} whose {@code handle} selects it); else, when there is an overload
     * without a failure parameter, yes except for an interrupt (as a programmatic {@code Fallback} without
     * {@code handle}); else no.
     */
    boolean handles(Throwable failure) {
        if (!(failure instanceof Exception) || failure instanceof CancellationException) {
            return false;
        }
        return overloadFor(failure) != null
                || withoutFailure != null && !(failure instanceof InterruptedException);
    }

    /**
     * The overload taking {@code failure}: of those whose failure parameter type it is an instance of, the one whose
     * type is the most specific (these types are all superclasses of the failure's class, so one is a subclass of
     * every other); {@code null} when there is none.
     */
    private Method overloadFor(Throwable failure) {
        Class<?> best = null;
        for (Class<?> type : withFailure.keySet()) {
            if (type.isInstance(failure) && (best == null || best.isAssignableFrom(type))) {
                best = type;
            }
        }
        return best == null ? null : withFailure.get(best);
    }

    /**
     * Tells the listeners, then calls the overload that takes {@code failure} (see {@link #handles}, which must have
     * said yes) on {@code target}.
     *
     * @throws Throwable what the fallback method throws, untouched
     */
    Object invoke(Object target, Object[] arguments, Throwable failure) throws Throwable {
        Method method = overloadFor(failure);
        Object[] actual = arguments;
        if (method != null) {
            actual = Arrays.copyOf(arguments, arguments.length + 1);
            actual[arguments.length] = failure;
        } else {
            method = withoutFailure;
        }
        tellListeners(failure);
        try {
            return method.invoke(target, actual);
        } catch (InvocationTargetException thrown) {
            throw thrown.getTargetException();
        }
    }

    private void tellListeners(Throwable failure) {
        listeners.orderedStream().forEach(listener -> {
            try {
                listener.fallbackTaken(policyName, annotated, failure);
            } catch (Throwable listenerFailure) {
                // Any throwable, as the core's listeners: an Error (a failed assertion) or a checked exception thrown
                // sneakily must not replace the fallback's result either.
                failureLogs.computeIfAbsent(listener, failed -> new ListenerFailureLog()).log(LOGGER, listener,
                        "the fallback method of " + annotated, "fallbackTaken", listenerFailure);
            }
        });
    }

    @Override
    public String toString() {
        List<String> overloads = new ArrayList<>();
        if (withoutFailure != null) {
            overloads.add(withoutFailure.toGenericString());
        }
        withFailure.values().forEach(method -> overloads.add(method.toGenericString()));
        return overloads.size() == 1 ? overloads.get(0) : overloads.toString();
    }
}
