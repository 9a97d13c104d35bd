package dev.bulwark.internal;

import java.util.concurrent.CompletableFuture;

/**
 * The future an in-process bulkhead returns for an asynchronous call that may queue ({@code callAsync},
 * {@code acquireAsync}): a plain {@link CompletableFuture} except that {@link #cancel} takes part in the queued
 * waiter's one fate-deciding compare-and-set instead of racing it.
 *
 * <p>Why: a grant, a timeout, an eviction or a close decides a waiter's fate by a CAS and completes its future
 * afterwards, outside the bulkhead's lock. A plain future's {@code cancel} could slip in between and win: the caller
 * then saw a cancellation for a waiter that a close had already refused and counted out of its drain (or a timer had
 * already timed out), which no order of the two explains (Lincheck's stress run found the close). Now a cancel first
 * tries to decide the waiter's fate itself; it cancels the future only if it decided it, or if the fate was a grant
 * whose slots it could still give back. Otherwise the fate is already decided elsewhere, {@code cancel} returns
 * {@code false}, and the future completes with that fate (the rejection, or the permit once delivered).
 */
final class WaiterFuture<T> extends CompletableFuture<T> {

    /** The queued waiter this future belongs to; set by the waiter's constructor, before it is queued. */
    volatile AsyncWaiter waiter;

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        AsyncWaiter queued = waiter;
        if (queued != null && !isDone() && !queued.cancelledByCaller()) {
            return false;
        }
        return super.cancel(mayInterruptIfRunning);
    }
}
