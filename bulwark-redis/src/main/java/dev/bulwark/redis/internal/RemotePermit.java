package dev.bulwark.redis.internal;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.OutcomeClassifier;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A permit held in Redis under a cluster-unique id.
 *
 * <p>Invariant: {@link #flags} only gains bits, each by compare-and-set, so each of the three facts about a permit
 * is established once by exactly one thread: {@link #CLOSED} (its holder closed it; only that thread sends the
 * release and reports {@code released}), {@link #LOST} (Redis no longer counts it; only that thread reports
 * {@code permitLost}) and {@link #SAMPLED} (only that thread gives the call to the adaptive limit). A permit closed
 * after it was lost still sends its release: because ids are never reused it can only remove its own entry, which Redis
 * may still count when the loss was declared ahead of the lease's end (see {@link LeaseKeeper#giveUpAge}).
 */
final class RemotePermit implements Permit, OutcomeClassifier {

    static final int CLOSED = 1;
    static final int LOST = 2;
    /** The adaptive limit took (or declined) this permit's sample: set by the first close only. */
    static final int SAMPLED = 4;

    private static final VarHandle FLAGS = VarHandles.field(MethodHandles.lookup(), "flags", int.class);

    final ClusterBulkhead bulkhead;
    final String id;
    /** How many slots it holds (also encoded in {@link #id}, which is how Redis gives back exactly these). */
    final int weight;
    /** Ticker reading when the permit was granted, for the execution time and the loss report. */
    final long acquiredAt;
    /** Ticker reading when the last request that renewed (or created) the lease was sent. */
    volatile long leaseRenewedAt;
    /**
     * Set once, before the permit's handle is published to the caller, when it gets one ({@link PermitHandle});
     * {@code null} for a permit nobody outside holds.
     */
    volatile PermitHandle.Tracker tracker;
    private volatile int flags;

    RemotePermit(ClusterBulkhead bulkhead, String id, int weight, long acquiredAt, long leaseRenewedAt) {
        this.bulkhead = bulkhead;
        this.id = id;
        this.weight = weight;
        this.acquiredAt = acquiredAt;
        this.leaseRenewedAt = leaseRenewedAt;
    }

    /** Sets {@code bit}; returns whether this call set it ({@code false} when it was already set). */
    boolean setFlag(int bit) {
        int current;
        do {
            current = flags;
            if ((current & bit) != 0) {
                return false;
            }
        } while (!FLAGS.compareAndSet(this, current, current | bit));
        return true;
    }

    int flags() {
        return flags;
    }

    @Override
    public void close() {
        close(Outcome.SUCCESS);
    }

    /**
     * Closes the permit and, with an adaptive limit, samples the call first (once, by the first close, and only
     * while the permit is neither closed nor lost), so that it counts itself in flight.
     */
    @Override
    public void close(Outcome outcome) {
        java.util.Objects.requireNonNull(outcome, "outcome");
        ClusterAdaptiveLimit adaptive = bulkhead.adaptive;
        if (adaptive != null && (flags & (CLOSED | LOST)) == 0 && setFlag(SAMPLED)) {
            adaptive.sample(this, outcome);
        }
        bulkhead.closePermit(this, true);
    }

    @Override
    public Outcome outcomeOf(Throwable failure) {
        return bulkhead.outcomeOf(failure);
    }

    /** Gives the slot back without reporting a release: for a permit granted to a caller who had given up. */
    void closeUnused() {
        bulkhead.closePermit(this, false);
    }

    @Override
    public boolean isReleased() {
        return (flags & CLOSED) != 0;
    }

    @Override
    public String toString() {
        int current = flags;
        return "Permit[" + bulkhead.name + " " + id + ((current & CLOSED) != 0 ? ", released"
                : (current & LOST) != 0 ? ", lost" : ", held") + "]";
    }
}
