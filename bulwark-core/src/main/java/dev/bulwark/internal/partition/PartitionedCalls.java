package dev.bulwark.internal.partition;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.Chain;
import dev.bulwark.internal.ChainStep;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.util.Stages;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
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
 * <p><b>Slots.</b> Without a global limit a call takes its key's slot. With one and global FIFO it goes through
 * {@link DualPermits}. With fair shares it waits for its key's slot, then, holding it, for a global slot from
 * {@link FairShares}: always in that order, so there is no deadlock (a call holding a global slot holds its key's
 * slot too and is running, and a running call does not wait for anything of ours), and a key's share counts
 * exactly the calls its own limit admitted.
 *
 * <p><b>Closed.</b> A call that got its slots after the partitioned bulkhead closed (it was queued, or entered just
 * before the close) gives them back and is refused with {@code CLOSED} before its operation starts: the check
 * is the last step before the operation (for a plain partition a {@link ChainStep} inside the partition's own
 * call, which allocates nothing), so after a close no operation starts.
 *
 * <p><b>Outcomes.</b> Slots around an operation that ran are closed with the outcome each bulkhead's adaptive
 * limit would classify it as ({@link DualPermits#closeAfterRun}): a return a success, a timeout a drop. Slots given
 * back without running anything (closed meanwhile, the caller gave up, the other slot not free) are closed
 * {@code IGNORED}, so neither limit learns from a call that never happened.
 *
 * @param <K> the key type
 */
public final class PartitionedCalls<K> {

    private final PartitionTable<K> table;
    private final @Nullable Bulkhead global;
    private final @Nullable FairShares fair;
    /** Runs the operation unless the table closed meanwhile; shared by every call. */
    private final Chain openCheck;

    /**
     * Creates the call paths over a table.
     *
     * @param table the partitions
     * @param global the bulkhead every call also needs a slot in, or {@code null}
     * @param fair the fair shares of the global bulkhead's slots, or {@code null} for global FIFO
     */
    public PartitionedCalls(PartitionTable<K> table, @Nullable Bulkhead global, @Nullable FairShares fair) {
        this.table = table;
        this.global = global;
        this.fair = fair;
        this.openCheck = new Chain(new ChainStep[] {new OpenCheck(table)});
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
                return partition.bulkhead().call(openCheck, 0, operation, signal);
            }
            Permit permit = acquireBoth(partition, global, signal);
            if (table.isClosed()) {
                permit.close(Permit.Outcome.IGNORED); // nothing ran: no sample for an adaptive limit
                throw table.rejectClosed(0L);
            }
            Throwable failure = null;
            try {
                return operation.get();
            } catch (Throwable thrown) {
                failure = thrown;
                throw thrown;
            } finally {
                DualPermits.closeAfterRun(permit, failure);
            }
        } finally {
            table.exit(partition);
        }
    }

    private Permit acquireBoth(Partition partition, Bulkhead global, CancellationSignal signal) {
        if (fair == null) {
            return DualPermits.acquire(partition.bulkhead(), global, signal);
        }
        Permit local = partition.bulkhead().acquire(signal);
        Permit globalSlot;
        try {
            globalSlot = fair.acquire(partition, signal);
        } catch (RuntimeException | Error refused) {
            local.close(Permit.Outcome.IGNORED);
            throw refused;
        }
        return DualPermits.pair(local, globalSlot);
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
        WaiterFuture<T> result = new WaiterFuture<>();
        Partition partition;
        CompletableFuture<Permit> slots;
        try {
            partition = table.enter(key);
        } catch (RuntimeException | Error refusedOrFailed) { // configFor's own failure, whatever its type
            result.completeExceptionally(refusedOrFailed);
            return result;
        }
        try {
            slots = global == null ? partition.bulkhead().acquireAsync(signal)
                    : fair == null ? DualPermits.acquireAsync(partition.bulkhead(), global, signal)
                    : acquireFairAsync(partition, fair, signal);
        } catch (RuntimeException | Error failedToWait) {
            table.exit(partition); // a bulkhead that throws instead of failing its future must not pin the partition
            result.completeExceptionally(failedToWait);
            return result;
        }
        // A caller giving up while queued leaves the queue(s); a cancel after the wait's fate was decided elsewhere
        // (a refusal, a timeout) is refused, and the future fails with that fate.
        result.ownedBy(WaiterFuture.following(() -> slots));
        result.whenComplete((value, failure) -> slots.cancel(false));
        slots.whenComplete((permit, failure) -> {
            if (failure != null) {
                table.exit(partition);
                result.completeExceptionally(Stages.unwrap(failure));
                return;
            }
            if (result.isDone()) {
                releaseUnused(permit, partition);
                return;
            }
            if (table.isClosed()) {
                releaseUnused(permit, partition);
                result.completeExceptionally(table.rejectClosed(0L));
                return;
            }
            Stages.start(operation).whenComplete((value, stageFailure) -> {
                Throwable ended = stageFailure == null ? null : Stages.unwrap(stageFailure);
                try {
                    DualPermits.closeAfterRun(permit, ended);
                } finally {
                    table.exit(partition);
                }
                if (ended == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(ended);
                }
            });
        });
        return result;
    }

    /** The key's slot, then (holding it) a fair global slot, without blocking; see the class notes. */
    private static CompletableFuture<Permit> acquireFairAsync(Partition partition, FairShares fair,
                                                              CancellationSignal signal) {
        WaiterFuture<Permit> both = new WaiterFuture<>();
        CompletableFuture<Permit> localStep = partition.bulkhead().acquireAsync(signal);
        AtomicReference<CompletableFuture<Permit>> waiting = new AtomicReference<>(localStep);
        both.ownedBy(WaiterFuture.following(waiting::get));
        both.whenComplete((permit, failure) -> waiting.get().cancel(false)); // the caller gave up: leave the queue
        localStep.whenComplete((local, failure) -> {
            if (failure != null) {
                both.completeExceptionally(Stages.unwrap(failure));
                return;
            }
            CompletableFuture<Permit> globalStep = fair.acquireAsync(partition, signal);
            waiting.set(globalStep);
            if (both.isDone()) {
                globalStep.cancel(false); // gave up between the two steps
            }
            globalStep.whenComplete((globalSlot, globalFailure) -> {
                if (globalFailure != null) {
                    local.close(Permit.Outcome.IGNORED);
                    both.completeExceptionally(Stages.unwrap(globalFailure));
                    return;
                }
                Permit pair = DualPermits.pair(local, globalSlot);
                if (!both.complete(pair)) {
                    pair.close(Permit.Outcome.IGNORED); // the caller gave up at that very moment
                }
            });
        });
        return both;
    }

    /**
     * Releases the slot(s) of a call that did not run ({@code IGNORED}: no sample for an adaptive limit), then leaves
     * the partition: a partition is evicted only once nothing holds a slot.
     */
    private void releaseUnused(Permit permit, Partition partition) {
        try {
            permit.close(Permit.Outcome.IGNORED);
        } finally {
            table.exit(partition);
        }
    }

    /** The last step before a plain partition's operation: refuses with {@code CLOSED} once the table closed. */
    private static final class OpenCheck implements ChainStep {
        private final PartitionTable<?> table;

        OpenCheck(PartitionTable<?> table) {
            this.table = table;
        }

        @Override
        public <T, X extends Throwable> T call(Chain chain, int next, ThrowingSupplier<? extends T, X> operation,
                                               CancellationSignal signal) throws X {
            if (table.isClosed()) {
                throw table.rejectClosed(0L);
            }
            return chain.proceed(next, operation, signal);
        }

        @Override
        public <T> CompletableFuture<T> callAsync(Chain chain, int next,
                                                  Supplier<? extends CompletionStage<T>> operation,
                                                  CancellationSignal signal) {
            if (table.isClosed()) {
                return CompletableFuture.failedFuture(table.rejectClosed(0L));
            }
            return Stages.start(() -> chain.proceedAsync(next, operation, signal)).toCompletableFuture();
        }
    }
}
