package dev.bulwark.internal.binding;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The fallback counters one binder handed out, by name, for both metrics back ends: asking again for a name returns
 * the same counter until it is closed, after which the name gets a new one. Thread-safe.
 *
 * @param <F> the back end's fallback counter
 */
public final class FallbackCounters<F> {

    private final ConcurrentMap<String, F> byName = new ConcurrentHashMap<>();

    /** Creates an empty set of counters. */
    public FallbackCounters() {
    }

    /**
     * Returns the counter called {@code name}, made by {@code make} if there is none (or it was closed).
     *
     * @param name the counter's name, not blank
     * @param make makes the counter of a name; the consumer it is given forgets that counter, and the counter must
     *     call it once, when it is closed
     * @return the counter
     * @throws NullPointerException when {@code name} is {@code null}
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public F get(String name, BiFunction<String, Consumer<F>, F> make) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank but was '" + name + "'");
        }
        return byName.computeIfAbsent(name, key -> make.apply(key, counter -> byName.remove(key, counter)));
    }
}
