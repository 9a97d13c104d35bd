package dev.bulwark.internal.spi;

import dev.bulwark.Permit;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A permit whose slots go back exactly once, whatever threads race to close it: the in-process bulkhead's permit,
 * a key's fair-share slot, and the Redis bulkhead's permit run without a slot all extend it, and say only what
 * releasing them does ({@link #release}).
 *
 * <p>Invariant: {@link #release} runs at most once per permit, on the thread whose close moved {@code released}
 * from 0 to 1 (one compare-and-set); every other close returns at once, and {@link #isReleased()} reads
 * {@code true} from the moment that compare-and-set succeeded, before the release has run. Thread-safe.
 */
public abstract class ReleaseOncePermit implements Permit {

    private static final VarHandle RELEASED = VarHandles.field(MethodHandles.lookup(), "released", int.class);

    @SuppressWarnings("unused") // through RELEASED
    private volatile int released;

    /** For subclasses. */
    protected ReleaseOncePermit() {
    }

    /** Closes with {@link Permit.Outcome#SUCCESS}; see {@link #close(Permit.Outcome)}. */
    @Override
    public final void close() {
        close(Outcome.SUCCESS);
    }

    /**
     * Releases the permit with {@code outcome} if no close came first; otherwise does nothing.
     *
     * @param outcome how the work went, for an adaptive limit
     * @throws NullPointerException when {@code outcome} is {@code null}, whether or not the permit was released
     */
    @Override
    public final void close(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome");
        if (RELEASED.compareAndSet(this, 0, 1)) {
            release(outcome);
        }
    }

    /**
     * Gives the slots back: called once, by the first close, on its thread.
     *
     * @param outcome what the first close was given
     */
    protected abstract void release(Outcome outcome);

    /**
     * Returns whether a close has won. A volatile read.
     *
     * @return {@code true} once closed; never goes back to {@code false}
     */
    @Override
    public final boolean isReleased() {
        return released != 0;
    }
}
