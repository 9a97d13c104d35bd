package dev.bulwark;

import org.jspecify.annotations.Nullable;

/**
 * A function that may throw an exception of type {@code X}.
 *
 * @param <A> the argument type
 * @param <R> the result type
 * @param <X> the exception it may throw ({@link RuntimeException} when it throws none)
 */
@FunctionalInterface
public interface ThrowingFunction<A extends @Nullable Object, R extends @Nullable Object, X extends Throwable> {

    /**
     * Applies the function.
     *
     * @param argument the argument
     * @return the result
     * @throws X whatever the function throws
     */
    R apply(A argument) throws X;
}
