package dev.bulwark;

/**
 * A listener attached to a policy or a registry after construction; {@link #close()} detaches it. Thread-safe
 * and idempotent.
 */
@FunctionalInterface
public interface Subscription extends AutoCloseable {

    /**
     * Detaches the listener. Events already being delivered may still reach it once. Never throws.
     */
    @Override
    void close();
}
