package dev.bulwark.internal.partition;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.OutcomeClassifier;
import dev.bulwark.internal.spi.ReleaseOncePermit;

/**
 * A global slot held by one call of a key through {@link FairShares}: closing it uncounts it from the key (before
 * the slot goes back, so a grant decided after the release never sees it held) and gives it back, exactly once
 * whatever threads race to close it ({@link ReleaseOncePermit}).
 */
final class FairPermit extends ReleaseOncePermit implements OutcomeClassifier {

    private final Partition partition;
    private final Permit global;

    FairPermit(Partition partition, Permit global) {
        this.partition = partition;
        this.global = global;
    }

    @Override
    protected void release(Outcome outcome) {
        partition.addHeld(-1); // first: a grant decided after the slot is back must not see it held
        global.close(outcome);
    }

    @Override
    public Outcome outcomeOf(Throwable failure) {
        return OutcomeClassifier.outcomeAfter(global, failure); // the global slot's own classification
    }
}
