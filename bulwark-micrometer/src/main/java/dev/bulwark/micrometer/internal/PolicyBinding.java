package dev.bulwark.micrometer.internal;

import dev.bulwark.Subscription;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The binding of one policy to a meter registry: closing it detaches the listener and removes the meters. It refers
 * to the policy and to the listener (whose subscription refers to the policy) only weakly, so holding a binding never
 * keeps a dropped policy alive; when the policy is collected, the {@link Cleaners#CLEANER} removes the meters.
 * Thread-safe; {@link #close()} is idempotent.
 */
final class PolicyBinding implements Subscription {

    private final String description;
    private final WeakReference<Object> policy;
    private final WeakReference<AttachedListener> listener;
    private final Cleaner.Cleanable removal;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param removal what removes the meters and forgets this binding; it must not refer to {@code policy}
     */
    PolicyBinding(String description, Object policy, AttachedListener listener, Runnable removal) {
        this.description = description;
        this.policy = new WeakReference<>(policy);
        this.listener = new WeakReference<>(listener);
        this.removal = Cleaners.CLEANER.register(policy, removal);
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
        return "binding of " + description + (isLive() ? "" : " (closed)");
    }
}
