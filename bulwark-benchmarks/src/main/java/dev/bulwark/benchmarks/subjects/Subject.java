package dev.bulwark.benchmarks.subjects;

import java.util.concurrent.CompletableFuture;

/**
 * One bulkhead implementation under measurement, behind the small surface every scenario uses, so that every
 * implementation runs exactly the same benchmark code and differs only inside these methods.
 *
 * <p>Each method is the way the implementation's documentation tells users to make that call; a refusal is caught
 * where a user would catch it and returned as a value, so that the rejection scenario measures the library's
 * refusal plus what a caller pays to receive it, and nothing of the benchmark's own.
 *
 * <p>Implementations are thread-safe to the same degree as the bulkhead they wrap: one instance is shared by all
 * the threads of a benchmark.
 */
public interface Subject {

    /**
     * Returns the name used as the benchmarks' {@code subject} parameter.
     *
     * @return the name, such as {@code bulwark} or {@code resilience4j-nostack}
     */
    String name();

    /**
     * Runs {@code work} under the bulkhead on the calling thread, waiting for a slot when the subject was built
     * with a queue.
     *
     * @param work the operation
     * @return the operation's result, or a refusal (see {@link #isRefusal(Object)}) when the bulkhead refused it
     */
    Object call(Work work);

    /**
     * Starts {@code work} under the bulkhead; the slot is held until the stage it returns completes.
     *
     * @param work the asynchronous operation
     * @return a future for the operation's result; a refusal completes it exceptionally (see
     *     {@link #isRefusal(Throwable)})
     */
    CompletableFuture<Object> callAsync(AsyncWork work);

    /**
     * Takes one slot outside any call, without waiting, for scenarios that need the bulkhead full before they
     * measure. Uses the implementation's own permit API.
     *
     * @return the held slot
     * @throws IllegalStateException when no slot is free
     */
    Slot occupy();

    /**
     * Tells whether a value returned by {@link #call(Work)} is this implementation's refusal.
     *
     * @param result a value returned by {@link #call(Work)}
     * @return {@code true} when the call was refused
     */
    boolean isRefusal(Object result);

    /**
     * Tells whether the exception that completed a {@link #callAsync(AsyncWork)} future is this implementation's
     * refusal.
     *
     * @param failure the exception, unwrapped from any {@link java.util.concurrent.CompletionException}
     * @return {@code true} when the call was refused
     */
    boolean isRefusal(Throwable failure);

    /** A slot taken by {@link #occupy()}; closing it gives the slot back. Close it once. */
    interface Slot extends AutoCloseable {
        @Override
        void close();
    }
}
