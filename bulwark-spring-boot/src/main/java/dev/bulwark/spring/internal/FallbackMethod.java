package dev.bulwark.spring.internal;

import dev.bulwark.spring.FallbackMethodListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ReflectionUtils;

/**
 * A bean's fallback method, named by an annotation and checked when the bean is proxied: it takes the annotated
 * method's parameters, optionally followed by the failure, and returns what the annotated method returns. Each time it
 * is taken, the {@link FallbackMethodListener} beans are told first (that is how {@code bulwark.fallback.used} counts
 * annotation fallbacks). Immutable, apart from remembering which listeners already had a failure logged.
 */
final class FallbackMethod {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.spring");

    private final Method method;
    /** The failure parameter's type, or {@code null} when the method takes none. */
    private final Class<?> failureType;
    /** The annotated method, the policy whose annotation names this fallback, and who is told of each use. */
    private final Method annotated;
    private final String policyName;
    private final ObjectProvider<FallbackMethodListener> listeners;
    /** Listeners whose failure was logged already: each is logged once, not once per call. */
    private final Set<FallbackMethodListener> loggedListeners = ConcurrentHashMap.newKeySet();

    private FallbackMethod(Method method, Class<?> failureType, Method annotated, String policyName,
                           ObjectProvider<FallbackMethodListener> listeners) {
        this.method = method;
        this.failureType = failureType;
        this.annotated = annotated;
        this.policyName = policyName;
        this.listeners = listeners;
    }

    /**
     * Finds the fallback method called {@code name} for {@code annotated} in {@code targetClass}.
     *
     * @param policyName the policy whose annotation names it, reported to the listeners
     * @param listeners told of each use, looked up at each use
     * @throws IllegalStateException when there is none of a fitting signature
     */
    static FallbackMethod resolve(Class<?> targetClass, Method annotated, String name, String policyName,
                                  ObjectProvider<FallbackMethodListener> listeners) {
        Class<?>[] parameters = annotated.getParameterTypes();
        List<Method> withFailure = new ArrayList<>();
        List<Method> withoutFailure = new ArrayList<>();
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
                withFailure.add(candidate);
            }
        });
        Method chosen = !withFailure.isEmpty() ? withFailure.get(0)
                : !withoutFailure.isEmpty() ? withoutFailure.get(0) : null;
        if (chosen == null) {
            String arguments = Arrays.stream(parameters).map(Class::getSimpleName).reduce((a, b) -> a + ", " + b)
                    .orElse("");
            throw new IllegalStateException("Fallback method '" + name + "' of " + annotated + " not found: "
                    + targetClass.getName() + " needs a method " + annotated.getReturnType().getSimpleName() + " "
                    + name + "(" + arguments + ") or " + annotated.getReturnType().getSimpleName() + " " + name + "("
                    + arguments + (arguments.isEmpty() ? "" : ", ") + "SomeException failure)");
        }
        ReflectionUtils.makeAccessible(chosen);
        Class<?>[] types = chosen.getParameterTypes();
        return new FallbackMethod(chosen, types.length > parameters.length ? types[parameters.length] : null,
                annotated, policyName, listeners);
    }

    private static boolean returns(Method candidate, Method annotated) {
        Class<?> expected = annotated.getReturnType();
        return expected == void.class ? candidate.getReturnType() == void.class
                : expected.isAssignableFrom(candidate.getReturnType());
    }

    /**
     * Whether this fallback replaces {@code failure}: never an error or a cancellation, and an interrupt only when
     * the failure parameter's type selects it (as a programmatic {@code Fallback} without {@code handle}).
     */
    boolean handles(Throwable failure) {
        if (!(failure instanceof Exception) || failure instanceof CancellationException) {
            return false;
        }
        return failureType == null ? !(failure instanceof InterruptedException) : failureType.isInstance(failure);
    }

    /**
     * Tells the listeners, then calls the fallback method on {@code target}.
     *
     * @throws Throwable what the fallback method throws, untouched
     */
    Object invoke(Object target, Object[] arguments, Throwable failure) throws Throwable {
        tellListeners(failure);
        Object[] actual = arguments;
        if (failureType != null) {
            actual = Arrays.copyOf(arguments, arguments.length + 1);
            actual[arguments.length] = failure;
        }
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
                if (loggedListeners.add(listener)) {
                    LOGGER.log(System.Logger.Level.WARNING, "FallbackMethodListener " + listener + " failed for "
                            + annotated + " (logged once; the fallback runs regardless)", listenerFailure);
                }
            }
        });
    }

    @Override
    public String toString() {
        return method.toGenericString();
    }
}
