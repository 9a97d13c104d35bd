package dev.bulwark.internal.bulkhead;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
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
        return global instanceof InProcessBulkhead bulkhead
                ? bulkhead.acquireAsync(CancellationSignal.none(), false) : global.acquireAsync();
    }
}
