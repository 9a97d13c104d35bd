package dev.bulwark.redis.internal;

import dev.bulwark.BulkheadListener;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Subscription;
import dev.bulwark.ThrowingSupplier;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What a {@code RedisBulkhead} delegates to: the exact mode ({@link ClusterBulkhead}, every admission in Redis) or
 * the leased mode ({@code lease.LeasedBulkhead}, admission in-process within a block leased from Redis). The public
 * class documents the behaviour; each implementation documents how it differs. Implementations are thread-safe.
 */
public interface BulkheadEngine {

    /** Runs a sync operation holding a permit of weight 1. */
    <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal) throws X;

    /** Runs a sync operation holding a permit of the options' weight. */
    <T, X extends Throwable> T call(CallOptions options, ThrowingSupplier<? extends T, X> operation) throws X;

    /** Takes a permit of weight 1, waiting if needed. */
    Permit acquire(CancellationSignal signal);

    /** Takes a permit of the options' weight, waiting if needed. */
    Permit acquire(CallOptions options);

    /** Takes a permit of weight 1 if one is free now. */
    Optional<Permit> tryAcquire();

    /** Takes a permit of the options' weight if the slots are free now. */
    Optional<Permit> tryAcquire(CallOptions options);

    /** Starts an asynchronous operation once a permit of weight 1 is granted. */
    <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation, CancellationSignal signal);

    /** Starts an asynchronous operation once a permit of the options' weight is granted. */
    <T> CompletableFuture<T> callAsync(CallOptions options, Supplier<? extends CompletionStage<T>> operation);

    /** Takes a permit of weight 1 without blocking. */
    CompletableFuture<Permit> acquireAsync(CancellationSignal signal);

    /** Takes a permit of the options' weight without blocking. */
    CompletableFuture<Permit> acquireAsync(CallOptions options);

    /** Attaches a core listener to this instance's events. */
    Subscription addListener(BulkheadListener listener);

    /** The bulkhead's name. */
    String name();

    /** The adaptive limit, or {@code null} when there is none (always in the leased mode). */
    ClusterAdaptiveLimit adaptiveLimit();

    /** The limits as this instance last saw them. */
    ClusterLimits limits();

    /** One round trip: the cluster-wide counts, {executing, queued}. */
    int[] clusterCounts(String operation);

    /** Changes one limit ({@code maxConcurrency}, {@code maxQueue} or {@code maxWaitNanos}). */
    void configure(String operation, String field, String value);

    /** Slots this instance's calls hold. */
    int localExecutingCount();

    /** This instance's waiting calls. */
    int localQueuedCount();

    /** Whether a drain or close began. */
    boolean isClosed();

    /** Drains this instance, waiting up to {@code deadlineNanos} for its running calls. */
    DrainResult drain(long deadlineNanos);

    /** {@code drain} without waiting. */
    void close();
}
