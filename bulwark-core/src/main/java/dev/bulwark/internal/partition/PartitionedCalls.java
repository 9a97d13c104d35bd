package dev.bulwark.internal.partition;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.Stages;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs one call through its key's partition: enter the partition, take the slot(s), run, release, leave.
 *
 * <h2>Design notes</h2>
 *
 * <p>Every path that {@link PartitionTable#enter entered} a partition {@link PartitionTable#exit exits} it exactly
 * once, after the call's slots are released, so a partition is never evicted while it holds a slot and its user
 * count returns to 0 whatever the operation, the bulkheads or the caller did (returned, threw, refused, timed
 * out, cancelled). The synchronous path does it in a {@code finally}; the asynchronous one in the completion of
 * the slot wait and of the operation's stage, or at once when starting the wait throws. Failures of the table
 * itself (a partition-limit refusal, a failing {@code configFor}) are thrown by the synchronous path and complete
 * the asynchronous one's future: an asynchronous call never throws after its arguments are checked.
 *
 * @param <K> the key type
 */
public final class PartitionedCalls<K> {

    private final PartitionTable<K> table;
    private final @Nullable Bulkhead global;

    /**
     * Creates the call paths over a table.
     *
     * @param table the partitions
     * @param global the bulkhead every call also needs a slot in, or {@code null}
     */
    public PartitionedCalls(PartitionTable<K> table, @Nullable Bulkhead global) {
        this.table = table;
        this.global = global;
    }

    /**
     * Runs {@code operation} under the key's bulkhead (and the global one), blocking while it waits.
     *
     * @param key the key, not {@code null}
     * @param operation the operation, not {@code null}
     * @param signal lets the caller give up while waiting, not {@code null}
     * @param <T> the result type
     * @param <X> the operation's checked exception
     * @return the operation's result
     * @throws X the operation's own exception, untouched
     */
    public <T, X extends Throwable> T call(K key, ThrowingSupplier<? extends T, X> operation,
                                           CancellationSignal signal) throws X {
        Partition partition = table.enter(key);
        try {
            if (global == null) {
                return partition.bulkhead().call(operation, signal);
            }
            try (Permit permit = DualPermits.acquire(partition.bulkhead(), global, signal)) {
                return operation.get();
            }
        } finally {
            table.exit(partition);
        }
    }

    /**
     * Runs an asynchronous operation under the key's bulkhead (and the global one). Never blocks; every failure
     * completes the returned future.
     *
     * @param key the key, not {@code null}
     * @param operation supplies the stage, not {@code null}
     * @param signal lets the caller give up while waiting, not {@code null}
     * @param <T> the result type
     * @return a new future; completing it (for example cancelling it) while the call waits leaves the queue(s)
     */
    public <T> CompletableFuture<T> callAsync(K key, Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Partition partition;
        CompletableFuture<Permit> slots;
        try {
            partition = table.enter(key);
        } catch (RuntimeException refusedOrFailed) {
            result.completeExceptionally(refusedOrFailed);
            return result;
        }
        try {
            slots = global == null ? partition.bulkhead().acquireAsync(signal)
                    : DualPermits.acquireAsync(partition.bulkhead(), global, signal);
        } catch (RuntimeException | Error failedToWait) {
            table.exit(partition); // a bulkhead that throws instead of failing its future must not pin the partition
            result.completeExceptionally(failedToWait);
            return result;
        }
        // A caller giving up while queued leaves the queue(s).
        result.whenComplete((value, failure) -> slots.cancel(false));
        slots.whenComplete((permit, failure) -> {
            if (failure != null) {
                table.exit(partition);
                result.completeExceptionally(Stages.unwrap(failure));
                return;
            }
            if (result.isDone()) {
                release(permit, partition);
                return;
            }
            Stages.start(operation).whenComplete((value, stageFailure) -> {
                release(permit, partition);
                if (stageFailure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(Stages.unwrap(stageFailure));
                }
            });
        });
        return result;
    }

    /** Releases first, then leaves the partition: a partition is evicted only once nothing holds a slot. */
    private void release(Permit permit, Partition partition) {
        try {
            permit.close();
        } finally {
            table.exit(partition);
        }
    }
}
