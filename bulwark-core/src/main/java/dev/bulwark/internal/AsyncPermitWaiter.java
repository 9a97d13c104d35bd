package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import java.util.concurrent.CompletableFuture;

/** A queued {@code acquireAsync}: once granted, it completes the caller's future with a permit. */
final class AsyncPermitWaiter extends AsyncWaiter {

    private final CompletableFuture<Permit> future;

    AsyncPermitWaiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt, long maxWaitNanos,
                      CompletableFuture<Permit> future) {
        super(bulkhead, signal, enqueuedAt, maxWaitNanos, future);
        this.future = future;
    }

    @Override
    void begin() {
        Permit permit = bulkhead.newPermit(weight);
        if (!future.complete(permit)) {
            // The caller abandoned the future between the check and now: nobody will ever close this permit.
            permit.close();
        }
    }
}
