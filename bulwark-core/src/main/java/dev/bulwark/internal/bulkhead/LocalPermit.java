package dev.bulwark.internal.bulkhead;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.OutcomeClassifier;
import dev.bulwark.internal.spi.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The slots of an in-process bulkhead held outside a lambda: one, or {@link #weight} for a weighted permit. The
 * permit knows its bulkhead only as {@link Slots}, defined here so that it does not import the bulkhead that makes it.
 *
 * <p>Invariant: {@link #released} goes from 0 to 1 once, by compare-and-set, and only the thread that made that
 * change releases the slots, all {@link #weight} of them together, so closing twice (or from two threads at once)
 * frees exactly the weight, once.
 */
final class LocalPermit implements Permit, OutcomeClassifier {

    private static final VarHandle RELEASED = VarHandles.field(MethodHandles.lookup(), "released", int.class);

    /** What a permit needs of its bulkhead: the release of its slots, with the call's outcome reported. */
    interface Slots {

        /** The bulkhead's name. */
        String name();

        /** Reports the call (timing, outcome) and releases {@code weight} slots; see the in-process bulkhead. */
        void releaseAfterRun(long startedAt, Outcome outcome, int weight);

        /** How a failed call counts for the adaptive limit. */
        Outcome outcomeOf(Throwable failure);
    }

    private final Slots bulkhead;
    private final long acquiredAt;
    private final int weight;
    private volatile int released;

    LocalPermit(Slots bulkhead, long acquiredAt, int weight) {
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
