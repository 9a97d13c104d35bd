package dev.bulwark.opentelemetry.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.Subscription;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Binds every bulkhead of a {@link Bulkheads} registry, those present and those added later, and unbinds a
 * bulkhead removed from it. Closing stops binding new ones and unbinds all it bound. A bulkhead already bound
 * through the same {@code BulwarkTelemetry} is skipped with a warning. Thread-safe.
 */
final class RegistryBinding implements Subscription {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.opentelemetry");

    private final Bindings bindings;
    /** By bulkhead name (unique in a registry), so that the binding holds no bulkhead strongly. */
    private final Map<String, Subscription> children = new ConcurrentHashMap<>();
    private volatile Subscription additions;
    private volatile Subscription removals;
    private volatile boolean closed;

    private RegistryBinding(Bindings bindings) {
        this.bindings = bindings;
    }

    static RegistryBinding start(Bindings bindings, Bulkheads bulkheads) {
        RegistryBinding binding = new RegistryBinding(bindings);
        binding.removals = bulkheads.onRemoved(binding::unbindOne);
        binding.additions = bulkheads.onAdded(binding::bindOne);
        return binding;
    }

    private void bindOne(Bulkhead bulkhead) {
        if (closed) {
            return;
        }
        Subscription child;
        try {
            child = bindings.bind(bulkhead);
        } catch (IllegalStateException alreadyBound) {
            LOGGER.log(System.Logger.Level.WARNING, "Bulkhead '" + bulkhead.name() + "' of the registry was not"
                    + " bound to OpenTelemetry: " + alreadyBound.getMessage());
            return;
        }
        children.values().removeIf(existing -> !((Bindings.PolicyBinding) existing).isLive());
        Subscription replaced = children.put(bulkhead.name(), child);
        if (replaced != null) {
            replaced.close();
        }
        // Invariant: close() writes `closed` before it reads `children`, and this method adds to `children` before it
        // reads `closed` (both volatile accesses), so a child added while closing is closed by one side or the other.
        if (closed) {
            child.close();
        }
    }

    private void unbindOne(Bulkhead bulkhead) {
        Subscription child = children.remove(bulkhead.name());
        if (child != null) {
            child.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (Subscription registration : new Subscription[] {additions, removals}) {
            if (registration != null) {
                registration.close();
            }
        }
        for (Subscription child : children.values()) {
            child.close();
        }
        children.clear();
    }

    @Override
    public String toString() {
        return "telemetry binding of a Bulkheads registry (" + children.size() + " bulkheads)"
                + (closed ? " (closed)" : "");
    }
}
