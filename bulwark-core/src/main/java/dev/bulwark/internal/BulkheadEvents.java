package dev.bulwark.internal;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fans a bulkhead's events out to its listeners, isolating each one: a listener that throws is logged (its
 * first failure at WARNING with the stack trace, later ones at DEBUG so that a broken listener cannot flood the
 * log) and never disturbs the call or the other listeners.
 *
 * <p>A bulkhead without listeners has no instance of this class at all, so that the hot path pays one null
 * check and no clock reads.
 */
final class BulkheadEvents {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.Bulkhead");

    private final String bulkheadName;
    private final BulkheadListener[] listeners;
    private final AtomicBoolean[] failedBefore;

    private BulkheadEvents(String bulkheadName, List<BulkheadListener> listeners) {
        this.bulkheadName = bulkheadName;
        this.listeners = listeners.toArray(new BulkheadListener[0]);
        this.failedBefore = new AtomicBoolean[this.listeners.length];
        for (int i = 0; i < failedBefore.length; i++) {
            failedBefore[i] = new AtomicBoolean();
        }
    }

    /** Returns the dispatcher for these listeners, or {@code null} when there are none. */
    static BulkheadEvents of(String bulkheadName, List<BulkheadListener> listeners) {
        return listeners.isEmpty() ? null : new BulkheadEvents(bulkheadName, listeners);
    }

    void admitted(long waitedNanos) {
        Duration waited = duration(waitedNanos);
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].admitted(waited);
            } catch (Throwable failure) {
                report(i, "admitted", failure);
            }
        }
    }

    void rejected(Rejection rejection) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].rejected(rejection);
            } catch (Throwable failure) {
                report(i, "rejected", failure);
            }
        }
    }

    void cancelled(long waitedNanos) {
        Duration waited = duration(waitedNanos);
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].cancelled(waited);
            } catch (Throwable failure) {
                report(i, "cancelled", failure);
            }
        }
    }

    void released(long executionNanos) {
        Duration executionTime = duration(executionNanos);
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].released(executionTime);
            } catch (Throwable failure) {
                report(i, "released", failure);
            }
        }
    }

    static Duration duration(long nanos) {
        return nanos <= 0 ? Duration.ZERO : Duration.ofNanos(nanos);
    }

    private void report(int index, String event, Throwable failure) {
        boolean first = failedBefore[index].compareAndSet(false, true);
        System.Logger.Level level = first ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
        if (LOGGER.isLoggable(level)) {
            LOGGER.log(level, "Listener " + listeners[index] + " of bulkhead '" + bulkheadName + "' threw on '"
                    + event + "'; the call is unaffected" + (first ? " (later failures are logged at DEBUG)" : ""),
                    failure);
        }
    }
}
