package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import java.util.concurrent.CompletableFuture;

/** A queued {@code acquireAsync}: once granted, it completes the caller's future with a permit. */
final class AsyncPermitWaiter extends AsyncWaiter {

    AsyncPermitWaiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt,
                      CompletableFuture<Permit> future) {
        super(bulkhead, signal, enqueuedAt, future);
    }

    @Override
    @SuppressWarnings("unchecked") // the caller's future is the CompletableFuture<Permit> the constructor was given
    void begin() {
        Permit permit = bulkhead.newPermit(weight);
        if (!((CompletableFuture<Permit>) callerFuture).complete(permit)) {
            // The caller abandoned the future between the check and now: nobody will ever close this permit.
            permit.close();
        }
    }
}
