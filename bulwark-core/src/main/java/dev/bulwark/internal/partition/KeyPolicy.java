package dev.bulwark.internal.partition;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import dev.bulwark.ThrowingSupplier;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A policy bound to one key of a partitioned bulkhead, for pipelines: every call runs under that key's partition
 * (and the global limit). Thread-safe and stateless.
 *
 * @param <K> the key type
 */
public final class KeyPolicy<K> implements Policy {

    private final String ownerName;
    private final PartitionedCalls<K> calls;
    private final K key;

    /**
     * Binds the call paths to a key.
     *
     * @param ownerName the partitioned bulkhead's name
     * @param calls its call paths
     * @param key the key, not {@code null}
     */
    public KeyPolicy(String ownerName, PartitionedCalls<K> calls, K key) {
        this.ownerName = ownerName;
        this.calls = calls;
        this.key = key;
    }

    @Override
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return calls.call(key, operation, signal);
    }

    @Override
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return calls.callAsync(key, operation, signal);
    }

    @Override
    public String toString() {
        return ownerName + "[" + key + "]";
    }
}
