package dev.bulwark.internal.spi;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import java.lang.invoke.MethodHandles;
import java.util.Objects;

/**
 * The bulkhead's access to {@link BulkheadRejectedException}'s one-allocation constructor, which is not public API:
 * the exception installs it here when its class is initialized, and this class makes sure that happened first.
 */
public final class RejectionAccess {

    /** Makes a refusal from a bulkhead's kept facts and the counts of the moment. */
    @FunctionalInterface
    public interface Maker {
        /**
         * Makes the exception.
         *
         * @param template the facts but for the counts
         * @param executingCount calls holding a slot at the refusal
         * @param queuedCount calls waiting at the refusal
         * @return the exception, its only allocation
         */
        BulkheadRejectedException make(Rejection template, int executingCount, int queuedCount);
    }

    private static Maker maker;

    static {
        try {
            MethodHandles.lookup().ensureInitialized(BulkheadRejectedException.class);
        } catch (IllegalAccessException impossible) {
            throw new ExceptionInInitializerError(impossible);
        }
    }

    private RejectionAccess() {
    }

    /**
     * Called once, by {@link BulkheadRejectedException}'s static initializer.
     *
     * @param installed the constructor
     */
    public static void install(Maker installed) {
        if (maker != null) {
            throw new IllegalStateException("already installed");
        }
        maker = Objects.requireNonNull(installed, "installed");
    }

    /**
     * Makes a refusal in one allocation.
     *
     * @param template the facts but for the counts (kept by the bulkhead for its current limits)
     * @param executingCount calls holding a slot at the refusal
     * @param queuedCount calls waiting at the refusal
     * @return the exception
     */
    public static BulkheadRejectedException withCounts(Rejection template, int executingCount, int queuedCount) {
        return maker.make(template, executingCount, queuedCount);
    }
}
