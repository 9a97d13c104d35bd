package dev.bulwark.internal.util;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How a policy logs a listener that threw: its first failure at WARNING with the stack trace, later ones at DEBUG, so
 * that a broken listener cannot flood the log. One instance per attached listener; the call and the other listeners
 * are never affected. Used by {@link ListenerArray}, the one listener fan-out of every policy; an instance also
 * names its attachment there, so the same listener attached twice is two entries with two logs.
 *
 * <p>Thread-safe: which failure is the first is decided by one compare-and-set.
 */
public final class ListenerFailureLog {

    private final AtomicBoolean failedBefore = new AtomicBoolean();

    /**
     * Logs a failure of the listener this instance belongs to.
     *
     * @param logger where to log (looked up by the caller only when a failure happens)
     * @param listener the listener that threw
     * @param owner the policy, as the message names it ({@code bulkhead 'db'}, {@code 'retry-name'})
     * @param event the event it threw on
     * @param failure what it threw
     */
    public void log(System.Logger logger, Object listener, String owner, String event, Throwable failure) {
        boolean first = failedBefore.compareAndSet(false, true);
        System.Logger.Level level = first ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
        if (logger.isLoggable(level)) {
            logger.log(level, "Listener " + listener + " of " + owner + " threw on '" + event
                    + "'; the call is unaffected" + (first ? " (later failures are logged at DEBUG)" : ""), failure);
        }
    }
}
