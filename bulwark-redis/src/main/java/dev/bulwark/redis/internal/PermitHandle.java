package dev.bulwark.redis.internal;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.OutcomeClassifier;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Objects;

/**
 * What a caller holds for a permit held in Redis: a handle on its {@link RemotePermit}, which the instance keeps
 * (the heartbeat renews it) while the handle is the caller's alone. A caller that drops the handle without closing
 * it leaks the permit; the garbage collector then enqueues the handle's {@link Tracker}, and the lease keeper's next
 * tick releases the permit and logs it ({@link ClusterBulkhead#reapLeaked}). No thread per permit: one reference
 * queue per instance, drained by the tick that already runs. Thread-safe as {@link RemotePermit} is.
 *
 * <p>Invariant: a permit's tracker is enqueued only once its handle is unreachable, which is after every close the
 * caller makes has returned ({@link Reference#reachabilityFence}); the reaper closes only a permit whose
 * {@link RemotePermit#CLOSED} flag it wins, so a permit is closed (and released) exactly once either way.
 */
final class PermitHandle implements Permit, OutcomeClassifier {

    private final RemotePermit permit;

    PermitHandle(RemotePermit permit, ReferenceQueue<PermitHandle> leaked) {
        this.permit = permit;
        permit.tracker = new Tracker(this, permit, leaked);
    }

    /** The permit this handle holds (for tests and the engine). */
    RemotePermit permit() {
        return permit;
    }

    @Override
    public void close() {
        close(Outcome.SUCCESS);
    }

    @Override
    public void close(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        try {
            permit.close(outcome);
        } finally {
            // Reachable until the close is done, so the reaper can never find this permit leaked meanwhile.
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public Outcome outcomeOf(Throwable failure) {
        return permit.outcomeOf(failure);
    }

    @Override
    public boolean isReleased() {
        return permit.isReleased();
    }

    @Override
    public String toString() {
        return permit.toString();
    }

    /**
     * Enqueued when its handle was collected. Refers to the permit, never to the handle, so it keeps the handle
     * collectable; kept reachable by {@link ClusterBulkhead#trackers} until the permit is closed or reaped.
     */
    static final class Tracker extends PhantomReference<PermitHandle> {

        final RemotePermit permit;

        Tracker(PermitHandle handle, RemotePermit permit, ReferenceQueue<PermitHandle> queue) {
            super(handle, queue);
            this.permit = permit;
        }
    }
}
