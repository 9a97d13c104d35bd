package dev.bulwark.internal.bulkhead;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import java.util.concurrent.CompletableFuture;

/**
 * A queued {@code acquireAsync}: once granted, it completes the caller's future with a permit. One made for nobody
 * in particular (the fair-share pump's request) is not {@link #reported}.
 */
final class AsyncPermitWaiter extends AsyncWaiter {

    private final boolean reported;

    /**
     * Creates the node of an {@code acquireAsync} whose caller is told through {@code future}.
     *
     * @param reported whether the bulkhead's overflow handler and listeners hear of a refusal or cancellation
     *     (an admission is always reported: a call holds the slot)
     */
    AsyncPermitWaiter(Room room, CancellationSignal signal, CompletableFuture<Permit> future, boolean reported) {
        super(room, signal, future, reported);
        this.reported = reported;
    }

    @Override
    boolean reported() {
        return reported;
    }

    @Override
    @SuppressWarnings("unchecked") // the caller's future is the CompletableFuture<Permit> the constructor was given
    void begin() {
        Permit permit = room.newPermit(weight);
        if (!((CompletableFuture<Permit>) callerFuture).complete(permit)) {
            // The caller abandoned the future between the check and now: nobody will ever close this permit, and
            // nothing ran under it (no sample for an adaptive limit).
            permit.close(Permit.Outcome.IGNORED);
        }
    }
}
