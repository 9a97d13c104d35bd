package dev.bulwark.internal;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A slot of an {@link InProcessBulkhead} held outside a lambda.
 *
 * <p>Invariant: {@link #released} goes from 0 to 1 once, by compare-and-set, and only the thread that made that
 * change releases the slot, so closing twice (or from two threads at once) frees exactly one slot.
 */
final class LocalPermit implements Permit {

    private static final VarHandle RELEASED = VarHandles.field(MethodHandles.lookup(), "released", int.class);

    private final InProcessBulkhead bulkhead;
    private final long acquiredAt;
    private volatile int released;

    LocalPermit(InProcessBulkhead bulkhead, long acquiredAt) {
        this.bulkhead = bulkhead;
        this.acquiredAt = acquiredAt;
    }

    @Override
    public void close() {
        close(Outcome.SUCCESS);
    }

    @Override
    public void close(Outcome outcome) {
        java.util.Objects.requireNonNull(outcome, "outcome");
        if (RELEASED.compareAndSet(this, 0, 1)) {
            bulkhead.releaseAfterRun(acquiredAt, outcome);
        }
    }

    @Override
    public boolean isReleased() {
        return released != 0;
    }

    @Override
    public String toString() {
        return "Permit[" + bulkhead.name() + (isReleased() ? ", released]" : ", held]");
    }
}
