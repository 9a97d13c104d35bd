package dev.bulwark.redis.internal;

import dev.bulwark.Permit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The permit of a call that runs without a slot because Redis could not decide and the bulkhead fails open. It
 * holds nothing in Redis; closing it only reports the release. Closing twice reports once.
 */
final class UnbackedPermit implements Permit {

    private final ClusterProtocol bulkhead;
    private final long acquiredAt;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** The caller has counted the call in {@link ClusterProtocol#running}; the first close counts it out. */
    UnbackedPermit(ClusterProtocol bulkhead, long acquiredAt) {
        this.bulkhead = bulkhead;
        this.acquiredAt = acquiredAt;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            bulkhead.reportReleased(acquiredAt);
            bulkhead.runningEnded();
        }
    }

    @Override
    public boolean isReleased() {
        return closed.get();
    }

    @Override
    public String toString() {
        return "Permit[" + bulkhead.name + " without a slot (failed open)" + (closed.get() ? ", released]" : "]");
    }
}
