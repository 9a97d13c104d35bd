package dev.bulwark.micrometer.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.Subscription;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Binds every bulkhead of a {@link Bulkheads} registry, those present and those added later. Closing it stops
 * binding new ones and unbinds all it bound. A bulkhead already bound through the same {@code BulwarkMetrics} is
 * skipped with a warning. Thread-safe.
 */
final class RegistryBinding implements Subscription {

    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.micrometer");

    private final Bindings bindings;
    private final Set<Subscription> children = ConcurrentHashMap.newKeySet();
    private volatile Subscription additions;
    private volatile boolean closed;

    private RegistryBinding(Bindings bindings) {
        this.bindings = bindings;
    }

    static RegistryBinding start(Bindings bindings, Bulkheads bulkheads) {
        RegistryBinding binding = new RegistryBinding(bindings);
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
                    + " bound to metrics: " + alreadyBound.getMessage());
            return;
        }
        // Bindings whose bulkhead was removed from the registry and collected have already lost their meters;
        // forget them so that a registry with churn does not accumulate them.
        children.removeIf(existing -> !((PolicyBinding) existing).isLive());
        children.add(child);
        // Invariant: close() writes `closed` before it reads `children`, and this method adds to `children` before
        // it reads `closed` (both volatile accesses), so at least one of them sees the other: a child added while
        // closing is closed by one side or the other, never by neither.
        if (closed) {
            child.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        Subscription current = additions;
        if (current != null) {
            current.close();
        }
        for (Subscription child : children) {
            child.close();
        }
        children.clear();
    }

    @Override
    public String toString() {
        return "binding of a Bulkheads registry (" + children.size() + " bulkheads)" + (closed ? " (closed)" : "");
    }
}
