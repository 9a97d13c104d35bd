package dev.bulwark.internal.partition;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.internal.spi.OutcomeClassifier;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.util.Stages;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Takes a slot in a key's bulkhead and in the global one without ever holding one while waiting for the other.
 *
 * <h2>Design notes</h2>
 *
 * <p>Holding the key's slot while waiting for a global one (or the reverse) deadlocks as soon as two keys do it in
 * opposite orders, and starves other calls of the key meanwhile. So a call waits for its key's slot, then takes a
 * global slot only if one is free at once; otherwise it gives its key's slot back and waits for a global slot, then
 * takes its key's slot only if free at once, and so on. Each wait follows that bulkhead's own queue rules (limit,
 * order, maximum wait) and the one cancellation signal applies to both. The asynchronous form runs the same steps,
 * each starting when the previous wait completes, on whichever thread completed it; giving up on the returned
 * future cancels the step waiting then. Invariant: at every moment a call holds at most the slots it is about to
 * return as a {@link Pair}, and on any failure or cancellation it holds none.
 *
 * <p>A slot given back because the other was not free ran nothing, so it is closed {@link Permit.Outcome#IGNORED}:
 * closed as a success it would feed an adaptive limit a call of about 0 ms. After the operation ran, each slot is
 * closed with its own bulkhead's classification of the outcome ({@link #closeAfterRun}).
 */
final class DualPermits {

    private DualPermits() {
    }

    /**
     * Waits for a slot in both bulkheads.
     *
     * @param local the key's bulkhead
     * @param global the global bulkhead
     * @param signal lets the caller give up while waiting
     * @return one permit releasing both slots
     * @throws dev.bulwark.BulkheadRejectedException when either bulkhead refuses
     * @throws java.util.concurrent.CancellationException when cancelled or interrupted while waiting
     */
    public static Permit acquire(Bulkhead local, Bulkhead global, CancellationSignal signal) {
        for (;;) {
            Permit localPermit = local.acquire(signal);
            Optional<Permit> globalPermit = global.tryAcquire();
            if (globalPermit.isPresent()) {
                return new Pair(localPermit, globalPermit.get());
            }
            localPermit.close(Permit.Outcome.IGNORED);
            Permit waitedGlobal = global.acquire(signal);
            Optional<Permit> retriedLocal = local.tryAcquire();
            if (retriedLocal.isPresent()) {
                return new Pair(retriedLocal.get(), waitedGlobal);
            }
            waitedGlobal.close(Permit.Outcome.IGNORED);
        }
    }

    /**
     * Waits for a slot in both bulkheads without blocking a thread.
     *
     * @param local the key's bulkhead
     * @param global the global bulkhead
     * @param signal lets the caller give up while waiting
     * @return a future of one permit releasing both slots; cancelling it leaves the queue waited in
     */
    public static CompletableFuture<Permit> acquireAsync(Bulkhead local, Bulkhead global, CancellationSignal signal) {
        WaiterFuture<Permit> both = new WaiterFuture<>();
        new AsyncPair(local, global, signal, both).waitForLocal();
        return both;
    }

    /** The asynchronous form of {@link #acquire}; each step starts when the previous wait completes. */
    private static final class AsyncPair {
        private final Bulkhead local;
        private final Bulkhead global;
        private final CancellationSignal signal;
        private final CompletableFuture<Permit> both;
        private volatile CompletableFuture<Permit> waiting;

        AsyncPair(Bulkhead local, Bulkhead global, CancellationSignal signal, WaiterFuture<Permit> both) {
            this.local = local;
            this.global = global;
            this.signal = signal;
            this.both = both;
            both.ownedBy(WaiterFuture.following(() -> waiting));
            both.whenComplete((permit, failure) -> {
                CompletableFuture<Permit> current = waiting;
                if (current != null) {
                    current.cancel(false);
                }
            });
        }

        void waitForLocal() {
            CompletableFuture<Permit> step = local.acquireAsync(signal);
            waiting = step;
            if (both.isDone()) {
                step.cancel(false); // the caller gave up between the two steps
            }
            step.whenComplete((localPermit, failure) -> {
                if (failure != null) {
                    both.completeExceptionally(Stages.unwrap(failure));
                    return;
                }
                Optional<Permit> globalPermit = global.tryAcquire();
                if (globalPermit.isPresent()) {
                    complete(new Pair(localPermit, globalPermit.get()));
                } else {
                    localPermit.close(Permit.Outcome.IGNORED);
                    waitForGlobal();
                }
            });
        }

        private void waitForGlobal() {
            CompletableFuture<Permit> step = global.acquireAsync(signal);
            waiting = step;
            if (both.isDone()) {
                step.cancel(false); // the caller gave up between the two steps
            }
            step.whenComplete((globalPermit, failure) -> {
                if (failure != null) {
                    both.completeExceptionally(Stages.unwrap(failure));
                    return;
                }
                Optional<Permit> localPermit = local.tryAcquire();
                if (localPermit.isPresent()) {
                    complete(new Pair(localPermit.get(), globalPermit));
                } else {
                    globalPermit.close(Permit.Outcome.IGNORED);
                    waitForLocal();
                }
            });
        }

        private void complete(Permit pair) {
            if (!both.complete(pair)) {
                pair.close(Permit.Outcome.IGNORED); // the caller gave up at that very moment
            }
        }
    }

    /**
     * Joins a key's slot and a global slot into one permit that releases both.
     *
     * @param local the key's slot
     * @param global the global slot
     * @return one permit releasing both, idempotently
     */
    static Permit pair(Permit local, Permit global) {
        return new Pair(local, global);
    }

    /**
     * Closes the slot(s) of an operation that ran and ended with {@code failure} ({@code null} when it returned),
     * each with the outcome its own bulkhead's adaptive limit would have classified it as
     * ({@link OutcomeClassifier#outcomeAfter}).
     *
     * @param permit a key's slot, or a pair from this class
     * @param failure what the operation failed with, or {@code null}
     */
    static void closeAfterRun(Permit permit, Throwable failure) {
        if (permit instanceof Pair pair) {
            try {
                pair.local.close(OutcomeClassifier.outcomeAfter(pair.local, failure));
            } finally {
                pair.global.close(OutcomeClassifier.outcomeAfter(pair.global, failure));
            }
        } else {
            permit.close(OutcomeClassifier.outcomeAfter(permit, failure));
        }
    }

    /** Two permits released together, idempotently (each permit is idempotent). */
    private static final class Pair implements Permit {
        private final Permit local;
        private final Permit global;

        Pair(Permit local, Permit global) {
            this.local = local;
            this.global = global;
        }

        @Override
        public void close() {
            close(Outcome.SUCCESS);
        }

        @Override
        public void close(Outcome outcome) {
            try {
                local.close(outcome);
            } finally {
                global.close(outcome);
            }
        }

        @Override
        public boolean isReleased() {
            return local.isReleased() && global.isReleased();
        }
    }
}
