package dev.bulwark.micrometer.internal;

import dev.bulwark.Subscription;

/**
 * A metrics listener attached to one policy, which remembers its own subscription. The policy holds the listener
 * strongly and the binding holds it only weakly, so the binding never keeps the policy alive (the subscription of a
 * bulkhead refers to the bulkhead).
 */
abstract class AttachedListener {

    private volatile Subscription subscription;

    /** Records the subscription that detaches this listener; called once, right after attaching. */
    final void attachedBy(Subscription subscription) {
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
