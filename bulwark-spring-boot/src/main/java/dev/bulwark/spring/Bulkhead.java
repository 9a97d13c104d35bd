package dev.bulwark.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method under the named bulkhead of the application's {@link dev.bulwark.Bulkheads} registry (declared under {@code bulwark.bulkheads.<name>}, or made from {@code bulwark.defaults.bulkhead} on first use).
 *
 * <p>Applies to public methods of Spring beans called through the bean (not to a call from the bean to itself),
 * returning a plain value, a {@link java.util.concurrent.CompletionStage}, or a Reactor {@code Mono} or {@code Flux}
 * (each subscription then goes through the policy without blocking a thread; that needs bulwark-reactor on the class
 * path, without which such a method fails the application's startup, naming the method). On a class, it applies to
 * every public method; on a non-public method it fails the application's startup, naming the method.
 * When a method carries several of {@code @Retry}, {@code @Timeout} and {@code @Bulkhead}, they compose as
 * {@code Pipeline.of(retry, timeout, bulkhead)}: each attempt gets its own deadline and its own slot.
 *
 * <p>This annotation shares its simple name with the policy type {@link dev.bulwark.Bulkhead}; import one and write the other
 * qualified, for example {@code @dev.bulwark.spring.Bulkhead("inventory-db")}.
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
     * The name of a method of the same bean to call instead when the call fails with a handled failure: every
     * {@link Exception} except a {@link java.util.concurrent.CancellationException} and an
     * {@link InterruptedException} (which passes through, so the caller still learns of the interrupt), or, when the
     * fallback method takes the failure as an extra last parameter, failures of that parameter's type. It takes the
     * annotated method's parameters (optionally followed by the failure) and returns what the annotated method
     * returns (for a {@code CompletionStage}, {@code Mono} or {@code Flux}, a value of that type). A method's
     * annotations may name at most one fallback method (several of them may name the same one). Checked when the bean is created.
     *
     * @return the fallback method's name, or empty for none
     */
    String fallbackMethod() default "";
}
