package dev.bulwark.internal.binding;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.Subscription;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Binds every bulkhead of a {@link Bulkheads} registry, those present and those added later, and unbinds a bulkhead
 * when it is removed from the registry; the one implementation behind the metrics bindings (Micrometer,
 * OpenTelemetry). Closing it stops binding new ones and unbinds all it bound. A bulkhead the binding function refuses
 * with {@link IllegalStateException} (already bound through the same binding object) is skipped with a warning.
 *
 * <p>Thread-safe. Holds no bulkhead strongly: children are kept by bulkhead name (unique in a registry), and children
 * whose bulkhead was collected are forgotten the next time one is added, so a registry with churn does not
 * accumulate them.
 */
final class RegistryBinding implements Subscription {

    private final Function<Bulkhead, Subscription> bind;
    private final Predicate<Subscription> isLive;
    private final System.Logger logger;
    private final String boundTo;
    private final Map<String, Subscription> children = new ConcurrentHashMap<>();
    private volatile Subscription additions;
    private volatile Subscription removals;
    private volatile boolean closed;

    private RegistryBinding(Function<Bulkhead, Subscription> bind, Predicate<Subscription> isLive,
                            System.Logger logger, String boundTo) {
        this.bind = bind;
        this.isLive = isLive;
        this.logger = logger;
        this.boundTo = boundTo;
    }

    /**
     * Starts binding the registry's bulkheads.
     *
     * @param bulkheads the registry
     * @param bind binds one bulkhead and returns what unbinds it; throws {@link IllegalStateException} when that
     *     bulkhead is already bound
     * @param isLive whether a child returned by {@code bind} still has its bulkhead (false once it was collected)
     * @param logger where a skipped bulkhead is reported
     * @param boundTo what the bulkheads are bound to, for that report and {@link #toString()} ("metrics", say)
     * @return the binding; closing it unbinds everything it bound
     */
    static RegistryBinding start(Bulkheads bulkheads, Function<Bulkhead, Subscription> bind,
                                        Predicate<Subscription> isLive, System.Logger logger, String boundTo) {
        RegistryBinding binding = new RegistryBinding(bind, isLive, logger, boundTo);
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
            child = bind.apply(bulkhead);
        } catch (IllegalStateException alreadyBound) {
            logger.log(System.Logger.Level.WARNING, "Bulkhead '" + bulkhead.name() + "' of the registry was not"
                    + " bound to " + boundTo + ": " + alreadyBound.getMessage());
            return;
        }
        children.values().removeIf(existing -> !isLive.test(existing));
        Subscription replaced = children.put(bulkhead.name(), child);
        if (replaced != null) {
            replaced.close();
        }
        // Invariant: close() writes `closed` before it reads `children`, and this method adds to `children` before
        // it reads `closed` (both volatile accesses), so at least one of them sees the other: a child added while
        // closing is closed by one side or the other, never by neither.
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
        return boundTo + " binding of a Bulkheads registry (" + children.size() + " bulkheads)"
                + (closed ? " (closed)" : "");
    }
}
