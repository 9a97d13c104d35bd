package dev.bulwark.redis.internal;

import dev.bulwark.internal.spi.ReleaseOncePermit;

/**
 * The permit of a call that runs without a slot because Redis could not decide and the bulkhead fails open. It
 * holds nothing in Redis; closing it only reports the release. Closing twice reports once.
 */
final class UnbackedPermit extends ReleaseOncePermit {

    private final ClusterBulkhead bulkhead;
    private final long acquiredAt;

    /** The caller has counted the call in {@link ClusterBulkhead#running}; the first close counts it out. */
    UnbackedPermit(ClusterBulkhead bulkhead, long acquiredAt) {
        this.bulkhead = bulkhead;
        this.acquiredAt = acquiredAt;
    }

    @Override
    protected void release(Outcome outcome) {
        bulkhead.reportReleased(acquiredAt);
        bulkhead.runningEnded();
    }

    @Override
    public String toString() {
        return "Permit[" + bulkhead.name + " without a slot (failed open)" + (isReleased() ? ", released]" : "]");
    }
}
