package dev.bulwark.internal.binding;

import dev.bulwark.Subscription;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The binding of one policy to a metrics back end: closing it detaches the listener and removes what the back end
 * registered. It refers to the policy and to the listener (whose subscription refers to the policy) only weakly, so
 * holding a binding never keeps a dropped policy alive; when the policy is collected, the cleaner runs the removal.
 *
 * <p>Thread-safe. Invariant: the removal runs at most once, whichever comes first of {@link #close()} and the
 * cleaner ({@link Cleaner.Cleanable#clean()} guarantees that); {@link #close()} detaches the listener at most once
 * (the {@code closed} flag's compare-and-set), so it is idempotent.
 */
final class PolicyBinding implements Subscription {

    private final String label;
    private final String description;
    private final WeakReference<Object> policy;
    private final WeakReference<AttachedListener> listener;
    private final Cleaner.Cleanable removal;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param label what kind of binding this is, for {@link #toString()} ("binding", "telemetry binding")
     * @param description the policy's kind and name, for {@link #toString()}
     * @param cleaner runs {@code removal} once the policy is collected
     * @param removal what removes the back end's registrations and forgets this binding; it must not refer to
     *     {@code policy}, or the policy would never be collected
     */
    PolicyBinding(String label, String description, Object policy, AttachedListener listener, Cleaner cleaner,
                  Runnable removal) {
        this.label = label;
        this.description = description;
        this.policy = new WeakReference<>(policy);
        this.listener = new WeakReference<>(listener);
        this.removal = cleaner.register(policy, removal);
    }

    /** Whether the policy is still reachable and this binding not closed. */
    boolean isLive() {
        return !closed.get() && policy.get() != null;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        AttachedListener attached = listener.get();
        if (attached != null) {
            attached.detach();
        }
        // Runs the removal at most once, whether the cleaner got there first or not.
        removal.clean();
    }

    @Override
    public String toString() {
        return label + " of " + description + (isLive() ? "" : " (closed)");
    }
}
