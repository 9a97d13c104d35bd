package dev.bulwark;

import org.jspecify.annotations.Nullable;

/**
 * An operation that produces a result and may throw a checked exception of type {@code X}.
 *
 * <p>Policies run it and let its exceptions through untouched: the very instance it throws reaches the
 * caller, and a checked exception keeps its type through {@code X}.
 *
 * @param <T> the type of the result
 * @param <X> the type of exception the operation may throw ({@link RuntimeException} when it throws none)
 */
@FunctionalInterface
public interface ThrowingSupplier<T extends @Nullable Object, X extends Throwable> {

    /**
     * Runs the operation.
     *
     * @return the result, which may be {@code null}
     * @throws X whatever the operation throws
     */
    T get() throws X;
}
