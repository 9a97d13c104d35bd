package dev.bulwark.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.internal.spi.WaiterFuture;
import java.util.concurrent.CompletableFuture;

/**
 * The fair-share pump's request for a global slot ({@code internal.partition.FairShares}): an
 * {@code acquireAsync()} made for no caller in particular, which times out at the global bulkhead's maximum wait and
 * is cancelled when nobody waits any more, both routinely, and then simply starts again.
 *
 * <p>On an in-process global bulkhead the request is {@code acquireAsync()} in all but its reports: its refusals
 * (queue full, maximum wait, eviction, close) and its cancellation reach neither that bulkhead's overflow handler nor
 * its listeners, which would otherwise count calls that were never made (the waiting calls' own refusals go to the
 * partitioned bulkhead's handler, once each). An admission is reported as usual: the slot is taken and held by a
 * waiting call, and its release is reported too. Flight Recorder still records the request's waits. Any other
 * global bulkhead (a cluster-wide one, say) gets a plain {@code acquireAsync()}, and reports as it does.
 */
public final class PumpAcquire {

    private PumpAcquire() {
    }

    /**
     * Asks the global bulkhead for a slot on behalf of the fair-share queue.
     *
     * @param global the global bulkhead
     * @return the slot's future, as {@link Bulkhead#acquireAsync()}'s
     */
    public static CompletableFuture<Permit> acquire(Bulkhead global) {
        if (!(global instanceof InProcessBulkhead)) {
            return global.acquireAsync();
        }
        InProcessBulkhead bulkhead = (InProcessBulkhead) global;
        long outcome = bulkhead.admitOrObserveFull();
        if (outcome == SlotQueue.ADMITTED) {
            bulkhead.reportAdmitted(0);
            return CompletableFuture.completedFuture(bulkhead.newPermit());
        }
        if (outcome != SlotQueue.MUST_WAIT) {
            return CompletableFuture.failedFuture(bulkhead.quietQueueFull(outcome));
        }
        CompletableFuture<Permit> future = new WaiterFuture<>();
        bulkhead.waitAsync(new PumpWaiter(bulkhead, future), future);
        return future;
    }

    /** A queued pump request: an {@code acquireAsync()} waiter whose refusals and cancellation are not reported. */
    private static final class PumpWaiter extends AsyncWaiter {
        PumpWaiter(InProcessBulkhead bulkhead, CompletableFuture<Permit> future) {
            super(bulkhead, CancellationSignal.none(), bulkhead.ticker().read(), future);
        }

        @Override
        boolean reported() {
            return false;
        }

        @Override
        @SuppressWarnings("unchecked") // the future the constructor was given
        void begin() {
            Permit permit = bulkhead.newPermit(weight);
            if (!((CompletableFuture<Permit>) callerFuture).complete(permit)) {
                permit.close(Permit.Outcome.IGNORED); // cancelled at that very moment: nobody will close it
            }
        }
    }
}
