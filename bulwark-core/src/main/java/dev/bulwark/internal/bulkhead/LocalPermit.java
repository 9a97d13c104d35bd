package dev.bulwark.internal.bulkhead;

import dev.bulwark.internal.spi.OutcomeClassifier;
import dev.bulwark.internal.spi.ReleaseOncePermit;

/**
 * The slots of an in-process bulkhead held outside a lambda: one, or {@link #weight} for a weighted permit. The
 * permit knows its bulkhead only as {@link Slots}, defined here so that it does not import the bulkhead that makes it.
 *
 * <p>Invariant ({@link ReleaseOncePermit}'s): only the first close releases the slots, all {@link #weight} of them
 * together, so closing twice (or from two threads at once) frees exactly the weight, once.
 */
final class LocalPermit extends ReleaseOncePermit implements OutcomeClassifier {

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

    LocalPermit(Slots bulkhead, long acquiredAt, int weight) {
        this.bulkhead = bulkhead;
        this.acquiredAt = acquiredAt;
        this.weight = weight;
    }

    @Override
    protected void release(Outcome outcome) {
        bulkhead.releaseAfterRun(acquiredAt, outcome, weight);
    }

    @Override
    public Outcome outcomeOf(Throwable failure) {
        return bulkhead.outcomeOf(failure);
    }

    @Override
    public String toString() {
        return "Permit[" + bulkhead.name() + (weight == 1 ? "" : ", weight " + weight)
                + (isReleased() ? ", released]" : ", held]");
    }
}
