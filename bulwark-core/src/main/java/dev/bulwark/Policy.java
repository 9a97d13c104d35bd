package dev.bulwark;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A fault-tolerance policy: something that runs an operation on the caller's behalf and decides whether,
 * when and how often it runs. A bulkhead, a retry, a timeout and a pipeline of them are all policies.
 *
 * <p>Every policy follows the same rules:
 * <ul>
 *   <li>The operation's own exceptions pass through untouched: the same instance, never wrapped; checked
 *       exceptions keep their type through the type parameter {@code X}.</li>
 *   <li>The policy's own failures are unchecked exceptions of Bulwark (for example
 *       {@link BulkheadRejectedException}) or {@link java.util.concurrent.CancellationException} when the
 *       {@link CancellationSignal} is cancelled.</li>
 *   <li>{@code callAsync} never blocks its caller: failures, including the policy's own, complete the
 *       returned future instead of being thrown.</li>
 * </ul>
 *
 * <p>Implementations are thread-safe: one policy instance is meant to be shared by every caller of the
 * resource it protects. This interface is not sealed: writing a policy of one's own that composes with
 * Bulwark's is an intended use.
 */
public interface Policy {

    /**
     * Runs {@code operation} under this policy and returns its result.
     *
     * @param operation the operation to run
     * @param signal lets the caller give up; what a cancellation does depends on the policy (a queued bulkhead
     *     call leaves the queue, for example). Use {@link CancellationSignal#none()} when there is none
     * @param <T> the result type
     * @param <X> the checked exception the operation may throw
     * @return the operation's result
     * @throws X the operation's own exception, untouched
     * @throws java.util.concurrent.CancellationException when {@code signal} is cancelled before the operation
     *     starts (or while the policy holds the call back)
     * @throws NullPointerException when an argument is {@code null}
     */
    <T extends @Nullable Object, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                             CancellationSignal signal) throws X;

    /**
     * Runs {@code operation} under this policy with no cancellation signal.
     *
     * @param operation the operation to run
     * @param <T> the result type
     * @param <X> the checked exception the operation may throw
     * @return the operation's result
     * @throws X the operation's own exception, untouched
     * @throws NullPointerException when {@code operation} is {@code null}
     * @see #call(ThrowingSupplier, CancellationSignal)
     */
    default <T extends @Nullable Object, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation)
            throws X {
        return call(operation, CancellationSignal.none());
    }

    /**
     * Runs {@code operation}, which has no result, under this policy.
     *
     * @param operation the operation to run
     * @param signal lets the caller give up; see {@link #call(ThrowingSupplier, CancellationSignal)}
     * @param <X> the checked exception the operation may throw
     * @throws X the operation's own exception, untouched
     * @throws java.util.concurrent.CancellationException when {@code signal} is cancelled before the operation
     *     starts
     * @throws NullPointerException when an argument is {@code null}
     */
    default <X extends Throwable> void run(ThrowingRunnable<X> operation, CancellationSignal signal) throws X {
        java.util.Objects.requireNonNull(operation, "operation");
        call(() -> {
            operation.run();
            return null;
        }, signal);
    }

    /**
     * Runs {@code operation}, which has no result, under this policy with no cancellation signal.
     *
     * @param operation the operation to run
     * @param <X> the checked exception the operation may throw
     * @throws X the operation's own exception, untouched
     * @throws NullPointerException when {@code operation} is {@code null}
     */
    default <X extends Throwable> void run(ThrowingRunnable<X> operation) throws X {
        run(operation, CancellationSignal.none());
    }

    /**
     * Runs an asynchronous operation under this policy. Never blocks the caller; a call the policy holds back
     * holds no thread while it waits.
     *
     * <p>The returned future completes with the operation's stage's own result or exception (not wrapped
     * again), or exceptionally with the policy's own failure. Cancelling the returned future tells the policy
     * the caller has given up; it does not necessarily stop an operation that has already started.
     *
     * @param operation supplies the stage of the asynchronous work; it is invoked at most once
     * @param signal lets the caller give up; see {@link #call(ThrowingSupplier, CancellationSignal)}
     * @param <T> the result type
     * @return a new future for the outcome
     * @throws NullPointerException when an argument is {@code null} (thrown, since no call was made)
     */
    <T extends @Nullable Object> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                                                CancellationSignal signal);

    /**
     * Runs an asynchronous operation under this policy with no cancellation signal.
     *
     * @param operation supplies the stage of the asynchronous work; it is invoked at most once
     * @param <T> the result type
     * @return a new future for the outcome
     * @throws NullPointerException when {@code operation} is {@code null}
     * @see #callAsync(Supplier, CancellationSignal)
     */
    default <T extends @Nullable Object> CompletableFuture<T> callAsync(
            Supplier<? extends CompletionStage<T>> operation) {
        return callAsync(operation, CancellationSignal.none());
    }
}
