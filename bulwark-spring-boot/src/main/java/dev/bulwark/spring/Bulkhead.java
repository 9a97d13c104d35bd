package dev.bulwark.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method under the named bulkhead of the application's {@link dev.bulwark.Bulkheads} registry (declared under
 * {@code bulwark.bulkheads.<name>}, or made from {@code bulwark.defaults.bulkhead} on first use).
 *
 * <p>Applies to public methods of Spring beans called through the bean (not to a call from the bean to itself),
 * returning a plain value, a {@link java.util.concurrent.CompletionStage}, or a Reactor {@code Mono} or {@code Flux}
 * (each subscription then goes through the policy without blocking a thread; that needs bulwark-reactor on the class
 * path, without which such a method fails the application's startup, naming the method). On a class, it applies to
 * every public method; on a non-public method it fails the application's startup, naming the method.
 * When a method carries several of {@code @Retry}, {@code @Timeout} and {@code @Bulkhead}, they compose as
 * {@code Pipeline.of(retry, timeout, bulkhead)}: each attempt gets its own deadline and its own slot.
 *
 * <p>This annotation shares its simple name with the policy type {@link dev.bulwark.Bulkhead}; import one and write the
 * other qualified, for example {@code @dev.bulwark.spring.Bulkhead("inventory-db")}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Bulkhead {

    /**
     * The name of the bulkhead.
     *
     * @return a non-blank name
     */
    String value();

    /**
     * The name of a method of the same bean to call instead when the call fails with a handled failure. It takes the
     * annotated method's parameters, optionally followed by the failure as an extra last parameter, and returns what
     * the annotated method returns (for a {@code CompletionStage}, {@code Mono} or {@code Flux}, a value of that
     * type). Several overloads of that name may be declared; for each failure, the one called is:
     * <ul>
     *   <li>of the overloads taking a failure, the one whose failure parameter's type is the most specific of those
     *   the failure is an instance of (an {@link InterruptedException} included, when such a type selects it);</li>
     *   <li>when none of them takes it, the overload without a failure parameter, if there is one: it takes every
     *   {@link Exception} except an {@link InterruptedException} (which passes through, so the caller still learns
     *   of the interrupt);</li>
     *   <li>otherwise none: the failure passes through.</li>
     * </ul>
     * An {@link Error} and a {@link java.util.concurrent.CancellationException} are never handled. A method's
     * annotations may name at most one fallback method (several of them may name the same one). Checked when the
     * bean is created: a name with no overload of a fitting signature fails the startup.
     *
     * @return the fallback method's name, or empty for none
     */
    String fallbackMethod() default "";
}
