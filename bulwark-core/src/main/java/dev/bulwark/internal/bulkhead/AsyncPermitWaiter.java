package dev.bulwark.internal.bulkhead;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.internal.spi.WaiterFuture;
import java.util.concurrent.CompletableFuture;

/**
 * A queued {@code acquireAsync}: once granted, it completes the caller's future with a permit. One made for nobody
 * in particular (the fair-share pump, {@link PumpAcquire}) is not {@link #reported}.
 */
final class AsyncPermitWaiter extends AsyncWaiter {

    private final boolean reported;

    AsyncPermitWaiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt,
                      CompletableFuture<Permit> future) {
        this(bulkhead, signal, enqueuedAt, future, true);
    }

    private AsyncPermitWaiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt,
                              CompletableFuture<Permit> future, boolean reported) {
        super(bulkhead, signal, enqueuedAt, future, reported);
        this.reported = reported;
    }

    /**
     * {@code acquireAsync} on {@code bulkhead} once the signal is checked: a permit at once, a refusal when the queue
     * is full, or a place in the queue.
     *
     * @param reported whether the bulkhead's overflow handler and listeners hear of a refusal or cancellation
     *     (an admission is always reported: a call holds the slot)
     */
    static CompletableFuture<Permit> acquire(InProcessBulkhead bulkhead, CancellationSignal signal, boolean reported) {
        long outcome = bulkhead.admitOrObserveFull();
        if (outcome == SlotQueue.ADMITTED) {
            bulkhead.reportAdmitted(0);
            return CompletableFuture.completedFuture(bulkhead.newPermit());
        }
        if (outcome != SlotQueue.MUST_WAIT) {
            return CompletableFuture.failedFuture(
                    reported ? bulkhead.rejectQueueFull(outcome) : bulkhead.quietQueueFull(outcome));
        }
        CompletableFuture<Permit> future = new WaiterFuture<>();
        bulkhead.waitAsync(new AsyncPermitWaiter(bulkhead, signal, bulkhead.ticker().read(), future, reported),
                future);
        return future;
    }

    @Override
    boolean reported() {
        return reported;
    }

    @Override
    @SuppressWarnings("unchecked") // the caller's future is the CompletableFuture<Permit> the constructor was given
    void begin() {
        Permit permit = bulkhead.newPermit(weight);
        if (!((CompletableFuture<Permit>) callerFuture).complete(permit)) {
            // The caller abandoned the future between the check and now: nobody will ever close this permit, and
            // nothing ran under it (no sample for an adaptive limit).
            permit.close(Permit.Outcome.IGNORED);
        }
    }
}
