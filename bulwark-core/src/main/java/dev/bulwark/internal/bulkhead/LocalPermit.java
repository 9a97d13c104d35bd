package dev.bulwark.internal.bulkhead;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.OutcomeClassifier;
import dev.bulwark.internal.spi.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The slots of an {@link InProcessBulkhead} held outside a lambda: one, or {@link #weight} for a weighted permit.
 *
 * <p>Invariant: {@link #released} goes from 0 to 1 once, by compare-and-set, and only the thread that made that
 * change releases the slots, all {@link #weight} of them together, so closing twice (or from two threads at once)
 * frees exactly the weight, once.
 */
final class LocalPermit implements Permit, OutcomeClassifier {

    private static final VarHandle RELEASED = VarHandles.field(MethodHandles.lookup(), "released", int.class);

    private final InProcessBulkhead bulkhead;
    private final long acquiredAt;
    private final int weight;
    private volatile int released;

    LocalPermit(InProcessBulkhead bulkhead, long acquiredAt, int weight) {
        this.bulkhead = bulkhead;
        this.acquiredAt = acquiredAt;
        this.weight = weight;
    }

    @Override
    public void close() {
        close(Outcome.SUCCESS);
    }

    @Override
    public void close(Outcome outcome) {
        java.util.Objects.requireNonNull(outcome, "outcome");
        if (RELEASED.compareAndSet(this, 0, 1)) {
            bulkhead.releaseAfterRun(acquiredAt, outcome, weight);
        }
    }

    @Override
    public Outcome outcomeOf(Throwable failure) {
        return bulkhead.outcomeOf(failure);
    }

    @Override
    public boolean isReleased() {
        return released != 0;
    }

    @Override
    public String toString() {
        return "Permit[" + bulkhead.name() + (weight == 1 ? "" : ", weight " + weight)
                + (isReleased() ? ", released]" : ", held]");
    }
}
