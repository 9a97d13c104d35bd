package dev.bulwark.internal.spi;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The future a bulkhead returns for an asynchronous call that may queue ({@code callAsync}, {@code acquireAsync}; the
 * in-process, per-key and Redis bulkheads alike): a plain {@link CompletableFuture} except that {@link #cancel} takes
 * part in the queued waiter's one fate-deciding step instead of racing it.
 *
 * <p>Why: a grant, a timeout, an eviction or a close decides a waiter's fate (by a CAS, or by taking it out of its
 * queue under a lock) and completes its future afterwards, outside any lock. A plain future's {@code cancel} could
 * slip in between and win: the caller then saw a cancellation for a waiter that a close had already refused and
 * counted in its drain (or a timer had already timed out and reported to the overflow handler), which no order of
 * the two explains (Lincheck's stress run found the close). Now a cancel first asks the waiter ({@link Owner}) to
 * decide its fate as cancelled; it cancels the future only if the waiter says so (it decided the fate itself, or the
 * fate was a grant whose slots are then given back). Otherwise the fate was decided elsewhere first,
 * {@code cancel} returns {@code false}, and the future completes with that fate.
 *
 * <p>Thread-safe: the owner is set once, by the waiter's constructor, before the future is returned to the caller.
 */
public final class WaiterFuture<T> extends CompletableFuture<T> {

    /** The queued waiter a future belongs to, as its cancel sees it. */
    public interface Owner {
        /**
         * The caller cancels the future: decides the waiter's fate as cancelled if it is still open, or arranges
         * for the slots of a grant not yet delivered to be given back.
         *
         * @return whether the future may be cancelled; {@code false} when the fate was decided elsewhere first (a
         *     timeout, an eviction, a refusal), which the future is then completed with
         */
        boolean cancelledByCaller();
    }

    /**
     * The owner of a future that waits on other futures in turn (a per-key call waiting for its key's slot, then for
     * the global one): a cancel is passed to the step waited on now, and stands if that step's cancel does, or if the
     * step has already succeeded (what it handed over is then released by the chain, which finds this future done).
     * When the step failed, or refused the cancel, the cancel is refused: the failure or the step's decided outcome
     * is what this future completes with.
     *
     * @param current reads the step waited on now
     * @return the owner
     */
    public static Owner following(Supplier<? extends CompletableFuture<?>> current) {
        return () -> {
            CompletableFuture<?> step = current.get();
            return step.isDone() ? !step.isCompletedExceptionally() : step.cancel(false);
        };
    }

    private volatile @Nullable Owner owner;

    /** Creates a future with no owner yet: until one is set, it behaves as a plain {@link CompletableFuture}. */
    public WaiterFuture() {
    }

    /**
     * Makes {@code waiter} decide this future's cancellation. Called once, by the waiter's constructor.
     *
     * @param waiter the waiter queued for this future
     */
    public void ownedBy(Owner waiter) {
        this.owner = waiter;
    }

    /**
     * Cancels the future if the queued waiter's fate is still open, or is a grant not yet delivered (whose slots
     * are then given back); otherwise returns {@code false} and the future completes with the fate decided first.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        Owner waiter = owner;
        if (waiter != null && !isDone() && !waiter.cancelledByCaller()) {
            return false;
        }
        return super.cancel(mayInterruptIfRunning);
    }
}
