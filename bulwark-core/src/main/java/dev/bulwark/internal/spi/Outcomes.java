package dev.bulwark.internal.spi;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Rejection;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * The ways a bulkhead call ends without running, made in one place for every bulkhead (in-process, per-key and
 * cluster-wide), so that they carry the same facts and the same wording: the refusal with its overflow handler,
 * and the three cancellations. Stateless; every method runs on the calling thread and touches nothing shared.
 */
public final class Outcomes {

    private Outcomes() {
    }

    /**
     * Makes the exception for a refusal and runs the overflow handler with it, on the current thread. The caller
     * reports the refusal to its listeners first. A handler that throws does not change the outcome: what it threw
     * is added to the exception as suppressed.
     *
     * @param rejection the facts of the refusal
     * @param cause what made the bulkhead refuse (a cluster-wide bulkhead's store failure), or {@code null}
     * @param handler the overflow handler, or {@code null} when none is set
     * @return the exception to throw or to complete the caller's future with
     */
    public static BulkheadRejectedException reject(Rejection rejection, Throwable cause,
                                                   Consumer<? super Rejection> handler) {
        BulkheadRejectedException exception = cause == null ? new BulkheadRejectedException(rejection)
                : new BulkheadRejectedException(rejection, cause);
        if (handler != null) {
            try {
                handler.accept(rejection);
            } catch (Throwable failure) {
                exception.addSuppressed(failure);
            }
        }
        return exception;
    }

    /**
     * The call's signal was cancelled before it asked for a slot.
     *
     * @param bulkhead the bulkhead's name
     * @param signal the cancelled signal; its reason, if any, becomes the cause
     * @return the exception
     */
    public static CancellationException cancelledBeforeStart(String bulkhead, CancellationSignal signal) {
        CancellationException exception =
                new CancellationException("Bulkhead '" + bulkhead + "': the call was cancelled before it started");
        signal.reason().ifPresent(exception::initCause);
        return exception;
    }

    /**
     * The call's signal was cancelled (or its future completed by the caller) while it waited for a slot.
     *
     * @param bulkhead the bulkhead's name
     * @param signal the call's signal; its reason, if any, becomes the cause
     * @return the exception
     */
    public static CancellationException cancelledWhileQueued(String bulkhead, CancellationSignal signal) {
        CancellationException exception =
                new CancellationException("Bulkhead '" + bulkhead + "': the call was cancelled while queued");
        signal.reason().ifPresent(exception::initCause);
        return exception;
    }

    /**
     * The waiting thread was interrupted. The caller keeps (or restores) the thread's interrupt status.
     *
     * @param bulkhead the bulkhead's name
     * @return the exception, caused by an {@link InterruptedException}
     */
    public static CancellationException interruptedWhileQueued(String bulkhead) {
        CancellationException exception =
                new CancellationException("Bulkhead '" + bulkhead + "': the thread was interrupted while queued");
        exception.initCause(new InterruptedException("interrupted while waiting for a slot of bulkhead '" + bulkhead
                + "'"));
        return exception;
    }
}
