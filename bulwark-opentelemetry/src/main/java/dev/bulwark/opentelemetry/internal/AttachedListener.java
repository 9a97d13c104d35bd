package dev.bulwark.opentelemetry.internal;

import dev.bulwark.Subscription;

/**
 * A listener attached to one policy, which remembers its own subscription. The policy holds the listener strongly
 * and the binding only weakly, so a binding never keeps its policy alive (a subscription refers to its policy).
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
