package dev.bulwark.internal.binding;

import dev.bulwark.Subscription;

/**
 * A metrics listener attached to one policy, which remembers its own subscription. The policy holds the listener
 * strongly and the binding holds it only weakly, so the binding never keeps the policy alive (the subscription of a
 * bulkhead refers to the bulkhead). The back ends' meters and instruments extend it.
 *
 * <p>Thread-safe: the subscription is published through a volatile field, so a binding closed on another thread (or
 * by the cleaner) detaches the listener it was attached by.
 */
abstract class AttachedListener {

    private volatile Subscription subscription;

    /** For subclasses. */
    protected AttachedListener() {
    }

    /**
     * Records the subscription that detaches this listener; called once, right after attaching.
     *
     * @param subscription what the policy's {@code addListener} returned for this listener
     */
    public final void attachedBy(Subscription subscription) {
        this.subscription = subscription;
    }

    /** Detaches this listener from its policy. Idempotent. */
    final void detach() {
        Subscription current = subscription;
        if (current != null) {
            current.close();
        }
    }
}
