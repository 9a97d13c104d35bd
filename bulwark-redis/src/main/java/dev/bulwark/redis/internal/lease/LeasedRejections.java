package dev.bulwark.redis.internal.lease;

import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.util.Stages;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Makes the refusals of a leased instance state its true facts. The core bulkhead's limit is the block plus the
 * slot the instance reserves for itself ({@link LocalBlock}), so every {@link Rejection} the core makes reads one
 * more than the block in {@code maxConcurrency} and, while the slot is held, one more than the calls in flight in
 * {@code executingCount}. {@link #translate(Rejection)} takes that slot out, and every path a refusal leaves the
 * instance by goes through it: the thrown exception (sync and async), the overflow handler and the listeners.
 *
 * <p>{@code maxConcurrency} is the instance's block, not the fleet's limit: the block is the limit that refused
 * the call, and the counts beside it ({@code executingCount}, {@code queuedCount}, {@code maxQueue}) are this
 * instance's, so "executing 3 of 3" says why. (The exact mode's refusals carry the fleet's limit because there the
 * fleet's limit is what refused.) Thread-safe.
 */
final class LeasedRejections {

    private final BooleanSupplier reservedHeld;
    private final BooleanSupplier releasingReservedHere;

    /**
     * @param reservedHeld {@link LocalBlock#reservedHeld()} of the instance's block (made after the core)
     * @param releasingReservedHere {@link LocalBlock#releasingReservedHere()} of that block
     */
    LeasedRejections(BooleanSupplier reservedHeld, BooleanSupplier releasingReservedHere) {
        this.reservedHeld = reservedHeld;
        this.releasingReservedHere = releasingReservedHere;
    }

    /**
     * The refusal with the reserved slot taken out of {@code maxConcurrency} (always counted: the core's limit is
     * the block plus one) and of {@code executingCount} (counted while the instance holds the slot, that is until
     * it drains); every other component unchanged.
     *
     * <p>Whether the slot is held is read now, after the core read its counts. The two differ only for a refusal
     * (reason {@code CLOSED}) racing with the drain giving the slot back ({@link LocalBlock#releaseReserved}): its
     * count then includes the slot while the flag says free, and it reads one call more. The core offers no
     * snapshot of both, and the alternative, keeping the slot for good, would keep the core's drain from ending.
     */
    Rejection translate(Rejection core) {
        int reserved = reservedHeld.getAsBoolean() ? 1 : 0;
        return new Rejection(core.bulkheadName(), core.reason(), Math.max(0, core.maxConcurrency() - 1),
                core.maxQueue(), Math.max(0, core.executingCount() - reserved), core.queuedCount(), core.waited(),
                core.priority());
    }

    /**
     * The same exception with the translated facts (its message is built from them): the same cause and
     * suppressed throwables (an overflow handler's failure), and, like the core's, no stack trace.
     */
    BulkheadRejectedException translate(BulkheadRejectedException core) {
        BulkheadRejectedException own = new BulkheadRejectedException(translate(core.rejection()), core.getCause());
        for (Throwable suppressed : core.getSuppressed()) {
            own.addSuppressed(suppressed);
        }
        return own;
    }

    /** The overflow handler given to the core: {@code handler} told the translated refusal. */
    Consumer<Rejection> handler(Consumer<? super Rejection> handler) {
        return rejection -> handler.accept(translate(rejection));
    }

    /**
     * The listener attached to the core for {@code listener}: every event passed on, refusals translated, except the
     * release of the reserved slot at the drain (the listeners were attached after it was taken, so they never saw
     * it admitted; passing its release on would make their calls in flight fall below zero).
     */
    BulkheadListener listener(BulkheadListener listener) {
        return new Translating(listener);
    }

    /**
     * The future the caller gets for the core's {@code core}: completed as it is, but a refusal of this core's
     * ({@code refusedHere} tells, for a failure that is not the operation's own) translated. Cancelling it cancels
     * {@code core} (the core then withdraws the waiter, or treats it as it treats a cancelled future of its own); with
     * {@code permits}, a permit granted after the caller cancelled is closed, so its slot is not lost.
     */
    <T> CompletableFuture<T> translate(CompletableFuture<T> core, BooleanSupplier refusedHere, boolean permits) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        core.whenComplete((value, failure) -> {
            if (failure == null) {
                if (!caller.complete(value) && permits && value instanceof Permit permit) {
                    permit.close();
                }
                return;
            }
            Throwable refusal = Stages.unwrap(failure);
            caller.completeExceptionally(refusal instanceof BulkheadRejectedException rejected
                    && refusedHere.getAsBoolean() ? translate(rejected) : failure);
        });
        caller.whenComplete((value, failure) -> {
            if (caller.isCancelled()) {
                core.cancel(false);
            }
        });
        return caller;
    }

    /** A listener passing every event on to its delegate, with refusals translated. */
    private final class Translating implements BulkheadListener {

        private final BulkheadListener delegate;

        Translating(BulkheadListener delegate) {
            this.delegate = delegate;
        }

        @Override
        public void admitted(long waitedNanos) {
            delegate.admitted(waitedNanos);
        }

        @Override
        public void admitted(long waitedNanos, Priority priority) {
            delegate.admitted(waitedNanos, priority);
        }

        @Override
        public void rejected(Rejection rejection) {
            delegate.rejected(translate(rejection));
        }

        @Override
        public void cancelled(long waitedNanos) {
            delegate.cancelled(waitedNanos);
        }

        @Override
        public void cancelled(long waitedNanos, Priority priority) {
            delegate.cancelled(waitedNanos, priority);
        }

        @Override
        public void released(long executionNanos) {
            if (!releasingReservedHere.getAsBoolean()) {
                delegate.released(executionNanos);
            }
        }

        @Override
        public String toString() {
            return delegate.toString();
        }
    }
}
