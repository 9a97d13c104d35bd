package dev.bulwark.internal.partition;

import dev.bulwark.Permit;
import dev.bulwark.internal.spi.OutcomeClassifier;
import dev.bulwark.internal.spi.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A global slot held by one call of a key through {@link FairShares}: closing it uncounts it from the key (before
 * the slot goes back, so a grant decided after the release never sees it held) and gives it back, exactly once
 * whatever threads race to close it (a compare-and-set on {@code released}).
 */
final class FairPermit implements Permit, OutcomeClassifier {
    private static final VarHandle RELEASED = VarHandles.field(MethodHandles.lookup(), "released", boolean.class);

    private final Partition partition;
    private final Permit global;
    @SuppressWarnings("unused") // through RELEASED
    private volatile boolean released;

    FairPermit(Partition partition, Permit global) {
        this.partition = partition;
        this.global = global;
    }

    @Override
    public void close() {
        close(Outcome.SUCCESS);
    }

    @Override
    public void close(Outcome outcome) {
        if (RELEASED.compareAndSet(this, false, true)) {
            partition.addHeld(-1); // first: a grant decided after the slot is back must not see it held
            global.close(outcome);
        }
    }

    @Override
    public Outcome outcomeOf(Throwable failure) {
        return OutcomeClassifier.outcomeAfter(global, failure); // the global slot's own classification
    }

    @Override
    public boolean isReleased() {
        return released;
    }
}
