package dev.bulwark.internal;

import dev.bulwark.Subscription;
import dev.bulwark.internal.util.ListenerFailureLog;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The listeners of one policy, each isolated from the call: a listener that throws is logged (its first failure
 * at WARNING with the stack trace, later ones at DEBUG) and never changes the outcome or the other listeners.
 *
 * <p>Listeners can be attached and detached at run time. The list is copy-on-write: {@link #any()} and
 * {@link #notify(String, Consumer)} start with one volatile read of it, {@code null} when there is no listener, so a
 * call path skips all event work with one null check.
 *
 * @param <L> the listener type
 */
public final class Listeners<L> {

    /**
     * The logger, looked up when first needed: finding the logging back end costs milliseconds (a service look-up)
     * that neither {@code build()} nor a caller's first call should pay for a failure that may never come.
     */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.bulwark");

        private Log() {
        }
    }
    private static final VarHandle CURRENT = VarHandles.field(MethodHandles.lookup(), "current", Entry[].class);

    private final String policyName;
    /** {@code null} when empty; never mutated, only replaced. */
    private volatile Entry[] current;

    /**
     * Creates the listener list of a policy.
     *
     * @param policyName names the policy in log messages
     * @param initial the listeners given to the builder, in order
     */
    public Listeners(String policyName, List<?> initial) {
        this.policyName = policyName;
        if (!initial.isEmpty()) {
            Entry[] entries = new Entry[initial.size()];
            for (int i = 0; i < entries.length; i++) {
                entries[i] = new Entry(initial.get(i));
            }
            this.current = entries;
        }
    }

    /**
     * Returns whether any listener is attached. One volatile read.
     *
     * @return {@code true} when there is at least one listener
     */
    public boolean any() {
        return current != null;
    }

    /**
     * Attaches a listener.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     */
    public Subscription add(L listener) {
        Entry entry = new Entry(Objects.requireNonNull(listener, "listener"));
        Entry[] before;
        Entry[] after;
        do {
            before = current;
            after = before == null ? new Entry[] {entry} : append(before, entry);
        } while (!CURRENT.compareAndSet(this, before, after));
        return () -> remove(entry);
    }

    private static Entry[] append(Entry[] entries, Entry entry) {
        Entry[] longer = Arrays.copyOf(entries, entries.length + 1);
        longer[entries.length] = entry;
        return longer;
    }

    private void remove(Entry entry) {
        Entry[] before;
        Entry[] after;
        do {
            before = current;
            if (before == null) {
                return;
            }
            int index = Arrays.asList(before).indexOf(entry);
            if (index < 0) {
                return;
            }
            if (before.length == 1) {
                after = null;
            } else {
                after = new Entry[before.length - 1];
                System.arraycopy(before, 0, after, 0, index);
                System.arraycopy(before, index + 1, after, index, after.length - index);
            }
        } while (!CURRENT.compareAndSet(this, before, after));
    }

    /**
     * Tells every listener, isolating each one.
     *
     * @param event names the event in log messages
     * @param action what to call on each listener
     */
    @SuppressWarnings("unchecked")
    public void notify(String event, Consumer<? super L> action) {
        Entry[] entries = current;
        if (entries == null) {
            return;
        }
        for (Entry entry : entries) {
            try {
                action.accept((L) entry.listener);
            } catch (Throwable failure) {
                entry.failures.log(Log.LOGGER, entry.listener, "'" + policyName + "'", event, failure);
            }
        }
    }

    private static final class Entry {
        final Object listener;
        final ListenerFailureLog failures = new ListenerFailureLog();

        Entry(Object listener) {
            this.listener = listener;
        }
    }
}
