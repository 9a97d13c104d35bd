package dev.bulwark.redis;

import dev.bulwark.CallOptions;
import dev.bulwark.Permit;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.redis.internal.BulkheadEngine;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The calls of a {@link RedisBulkhead} that take {@link CallOptions}: a weight (slots of the cluster-wide limit), a
 * priority and a cancellation signal. Kept apart from {@link RedisBulkhead}, which holds the weight-1 forms, the
 * limits and the life cycle. Thread-safe. The rules of weights and priorities are in {@link RedisBulkhead}'s class
 * comment.
 */
abstract sealed class CallsWithOptions permits RedisBulkhead {

    final BulkheadEngine engine;

    CallsWithOptions(BulkheadEngine engine) {
        this.engine = engine;
    }

    /**
     * Runs {@code operation} on the calling thread holding {@link CallOptions#weight()} slots of the cluster-wide
     * limit, waiting in the cluster-wide queue at the options' priority if needed (the thread parks), and
     * releasing the slots together, once, when it ends. Otherwise as {@link RedisBulkhead#call}.
     *
     * @param options the weight, priority and cancellation signal
     * @param operation the operation
     * @param <T> the result type
     * @param <X> the operation's checked exception
     * @return the operation's result
     * @throws X the operation's own exception, untouched; the slots are released first
     * @throws IllegalArgumentException when the weight exceeds {@link RedisBulkhead#maxConcurrency()} (message names
     *     {@code weight}); the operation did not run
     * @throws dev.bulwark.BulkheadRejectedException when the queue is full, the maximum wait passed, a higher
     *     priority evicted the call, the limit dropped below its weight, Redis could not decide (failing closed),
     *     or this instance is closed
     * @throws java.util.concurrent.CancellationException when the signal was cancelled or the thread interrupted
     *     while waiting
     * @throws NullPointerException when an argument is {@code null}
     */
    public <T, X extends Throwable> T call(CallOptions options, ThrowingSupplier<? extends T, X> operation)
            throws X {
        return engine.call(options, operation);
    }

    /**
     * Starts {@code operation} on the executor once {@link CallOptions#weight()} slots are granted, and holds them
     * until the stage it returns completes. Never blocks. Otherwise as {@link RedisBulkhead#callAsync}.
     *
     * @param options the weight, priority and cancellation signal
     * @param operation supplies the stage of the asynchronous work
     * @param <T> the result type
     * @return a future completed with the stage's outcome, or exceptionally with the refusal; with
     *     {@link IllegalArgumentException} (naming {@code weight}) when the weight exceeds the limit
     * @throws NullPointerException when an argument is {@code null}
     */
    public <T> CompletableFuture<T> callAsync(CallOptions options,
                                              Supplier<? extends CompletionStage<T>> operation) {
        return engine.callAsync(options, operation);
    }

    /**
     * Takes {@link CallOptions#weight()} slots as one permit whose close gives all of them back, once; waits as
     * {@link #call(CallOptions, ThrowingSupplier)} does.
     *
     * @param options the weight, priority and cancellation signal
     * @return the permit, held in Redis under a cluster-unique id and renewed until it is closed
     * @throws IllegalArgumentException when the weight exceeds {@link RedisBulkhead#maxConcurrency()} (message names
     *     {@code weight})
     * @throws dev.bulwark.BulkheadRejectedException see {@link #call(CallOptions, ThrowingSupplier)}
     * @throws java.util.concurrent.CancellationException when the signal was cancelled or the thread interrupted
     *     while waiting
     * @throws NullPointerException when {@code options} is {@code null}
     */
    public Permit acquireWith(CallOptions options) {
        return engine.acquire(options);
    }

    /**
     * Takes {@link CallOptions#weight()} slots if they are free now and nobody waits anywhere in the cluster; one
     * round trip, never waits, never calls the overflow handler. When Redis cannot decide it returns empty if the
     * bulkhead fails closed and a permit without a slot if it fails open.
     *
     * @param options the weight and priority (a cancelled signal gives empty)
     * @return the permit, or empty when the slots are not free, others wait, or this instance is closed
     * @throws IllegalArgumentException when the weight exceeds {@link RedisBulkhead#maxConcurrency()} (message names
     *     {@code weight})
     * @throws NullPointerException when {@code options} is {@code null}
     */
    public Optional<Permit> tryAcquireWith(CallOptions options) {
        return engine.tryAcquire(options);
    }

    /**
     * Takes {@link CallOptions#weight()} slots without blocking; the future completes on the executor.
     *
     * @param options the weight, priority and cancellation signal
     * @return a future for the permit; failed with {@link IllegalArgumentException} (naming {@code weight}) when
     *     the weight exceeds the limit, or with the refusal
     * @throws NullPointerException when {@code options} is {@code null}
     */
    public CompletableFuture<Permit> acquireAsyncWith(CallOptions options) {
        return engine.acquireAsync(options);
    }
}
