package dev.bulwark.opentelemetry.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The asynchronous instruments (callbacks) one binding registered, closed together when it unbinds. It must never
 * refer to the bound policy: the binding table's cleaner runs {@link #close()} once the policy is collected.
 * Thread-safe; closing is idempotent.
 */
final class Observations {

    private final List<AutoCloseable> callbacks = new CopyOnWriteArrayList<>();

    <C extends AutoCloseable> C add(C callback) {
        callbacks.add(callback);
        return callback;
    }

    /** Closes every callback; the SDK stops calling it and stops exporting its series. */
    void close() {
        for (AutoCloseable callback : callbacks) {
            try {
                callback.close();
            } catch (Exception ignored) {
                // ObservableLongCounter.close() declares no checked exception in practice; nothing to do.
            }
        }
        callbacks.clear();
    }
}
