package dev.bulwark.internal.spi;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The bulkhead's access to {@link BulkheadRejectedException}'s one-allocation constructor, which is not public API.
 *
 * <p><b>No initialisation cycle.</b> This class reaches the private constructor through a private lookup in the
 * exception's class (same module), and the exception knows nothing of this class. So neither static initialiser
 * waits on the other: an earlier design, where the exception installed its constructor here from its own static
 * initialiser while this class ensured the exception was initialised, deadlocked when two threads made the first
 * refusals of a JVM through both paths at once. Finding the constructor neither loads nor initialises anything but
 * the exception's class itself; a caller pays it when the bulkhead is built ({@code InProcessBulkhead} initialises
 * this class), not at its first refusal.
 */
public final class RejectionAccess {

    /** {@code (Rejection, int, int) -> BulkheadRejectedException}: a constant, so a compiled call is a plain new. */
    private static final MethodHandle WITH_COUNTS = withCountsConstructor();

    private RejectionAccess() {
    }

    private static MethodHandle withCountsConstructor() {
        try {
            return MethodHandles.privateLookupIn(BulkheadRejectedException.class, MethodHandles.lookup())
                    .findConstructor(BulkheadRejectedException.class,
                            MethodType.methodType(void.class, Rejection.class, int.class, int.class));
        } catch (ReflectiveOperationException impossible) {
            // Same module, and the constructor is there: only a broken build gets here.
            throw new ExceptionInInitializerError(impossible);
        }
    }

    /**
     * Makes a refusal in one allocation. Thread-safe, lock-free.
     *
     * @param template the facts but for the counts (kept by the bulkhead for its current limits)
     * @param executingCount slots held at the refusal
     * @param queuedCount slots waited for at the refusal
     * @return the exception
     */
    public static BulkheadRejectedException withCounts(Rejection template, int executingCount, int queuedCount) {
        try {
            return (BulkheadRejectedException) WITH_COUNTS.invokeExact(template, executingCount, queuedCount);
        } catch (RuntimeException | Error unchecked) {
            throw unchecked;
        } catch (Throwable impossible) {
            // The constructor declares no checked exception.
            throw new IllegalStateException(impossible);
        }
    }
}
