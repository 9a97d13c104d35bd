package dev.bulwark;

/**
 * An operation without a result that may throw a checked exception of type {@code X}.
 *
 * <p>Policies run it and let its exceptions through untouched: the very instance it throws reaches the
 * caller, and a checked exception keeps its type through {@code X}.
 *
 * @param <X> the type of exception the operation may throw ({@link RuntimeException} when it throws none)
 */
@FunctionalInterface
public interface ThrowingRunnable<X extends Throwable> {

    /**
     * Runs the operation.
     *
     * @throws X whatever the operation throws
     */
    void run() throws X;
}
