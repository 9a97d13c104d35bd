package dev.bulwark.spring;

import java.lang.reflect.Method;

/**
 * Told of every fallback method that an annotation's {@code fallbackMethod} took: declare beans of this type to log
 * or count them. Bulwark's metrics auto-configuration declares one that counts them in {@code bulwark.fallback.used},
 * tagged with the policy name, the way {@code BulwarkMetrics.fallbackCounter(name)} counts a programmatic
 * {@link dev.bulwark.Fallback}.
 *
 * <p>Each listener bean is called once per fallback, in bean order, on the thread that saw the failure (the caller's
 * thread for a plain method, the completing thread for a {@code CompletionStage}, a Reactor thread for a
 * {@code Mono}/{@code Flux}), just before the fallback method runs. A listener must be thread-safe. One that throws,
 * whatever it throws (an {@link Error} or a checked exception included), is logged at WARNING the first time (per
 * listener and annotated method; later failures at DEBUG, as a core policy's listeners are) and changes nothing: the
 * fallback method still runs and its result or failure is the call's.
 */
@FunctionalInterface
public interface FallbackMethodListener {

    /**
     * Called when {@code failure} ended a call of {@code method} and its fallback method is about to replace it.
     *
     * @param name the name of the policy whose annotation names the fallback method (with several annotations on
     *             one method, the outermost one that names it: retry, then timeout, then bulkhead)
     * @param method the annotated method
     * @param failure the failure the fallback method replaces (never a cancellation nor an {@link Error})
     */
    void fallbackTaken(String name, Method method, Throwable failure);
}
