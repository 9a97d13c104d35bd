package dev.bulwark.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The listeners of one policy, each isolated from the call: a listener that throws is logged (its first failure
 * at WARNING with the stack trace, later ones at DEBUG) and never changes the outcome or the other listeners.
 *
 * @param <L> the listener type
 */
public final class Listeners<L> {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark");

    private final String policyName;
    private final Object[] listeners;
    private final AtomicBoolean[] failedBefore;

    private Listeners(String policyName, List<? extends L> listeners) {
        this.policyName = policyName;
        this.listeners = listeners.toArray();
        this.failedBefore = new AtomicBoolean[this.listeners.length];
        for (int i = 0; i < failedBefore.length; i++) {
            failedBefore[i] = new AtomicBoolean();
        }
    }

    /**
     * Returns the listeners of a policy, or {@code null} when there are none, so the call path can skip all event
     * work with one null check.
     *
     * @param policyName names the policy in log messages
     * @param listeners the listeners, in order
     * @param <L> the listener type
     * @return the dispatcher or {@code null}
     */
    public static <L> Listeners<L> of(String policyName, List<? extends L> listeners) {
        return listeners.isEmpty() ? null : new Listeners<>(policyName, listeners);
    }

    /**
     * Tells every listener, isolating each one.
     *
     * @param event names the event in log messages
     * @param action what to call on each listener
     */
    @SuppressWarnings("unchecked")
    public void notify(String event, Consumer<? super L> action) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                action.accept((L) listeners[i]);
            } catch (Throwable failure) {
                boolean first = failedBefore[i].compareAndSet(false, true);
                System.Logger.Level level = first ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
                if (LOGGER.isLoggable(level)) {
                    LOGGER.log(level, "Listener " + listeners[i] + " of '" + policyName + "' threw on '" + event
                            + "'; the call is unaffected" + (first ? " (later failures are logged at DEBUG)" : ""),
                            failure);
                }
            }
        }
    }
}
