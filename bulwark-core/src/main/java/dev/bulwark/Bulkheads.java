package dev.bulwark;

import dev.bulwark.internal.bulkhead.InProcessBulkhead;
import dev.bulwark.internal.util.ListenerArray;
import dev.bulwark.internal.util.ListenerList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A registry of bulkheads by name, so that an application declares each bulkhead once and metrics, health
 * endpoints and dashboards can bind all of them at once ({@link #onAdded}).
 *
 * <p>{@link #bulkhead(BulkheadConfig)} creates the bulkhead the first time a name is asked for and returns the
 * same instance afterwards; asking again with a <em>different</em> configuration for the same name fails loudly
 * rather than silently handing back a bulkhead configured otherwise. Bulkheads of other implementations (such as a
 * cluster-wide one) join with {@link #register(Bulkhead)}.
 *
 * <p>Thread-safe. Lookups read an immutable snapshot; additions take a short lock. The registry holds its
 * bulkheads strongly until {@link #remove(String) removed}.
 */
public final class Bulkheads implements Iterable<Bulkhead> {

    private final ReentrantLock lock = new ReentrantLock();
    /** Immutable snapshot in insertion order; replaced under {@link #lock}. */
    private volatile Map<String, Entry> entries = Map.of();
    private final ListenerList<Consumer<Entry>> addedListeners =
            new ListenerList<>("dev.bulwark", "", "bulkheads", List.of());
    private final ListenerList<Consumer<? super Bulkhead>> removedListeners =
            new ListenerList<>("dev.bulwark", "", "bulkheads", List.of());
    /** Numbers additions, so a new {@link #onAdded} callback skips announcements its snapshot already covered. */
    private long additions;

    /**
     * Creates an empty registry.
     *
     * @return a new registry
     */
    public static Bulkheads create() {
        return new Bulkheads();
    }

    private Bulkheads() {
    }

    /**
     * Returns the bulkhead named in {@code config}, creating it with that configuration the first time.
     *
     * @param config the configuration; its name is the key
     * @return the one bulkhead of that name
     * @throws IllegalStateException when a bulkhead of that name exists with a different configuration, or was
     *     registered with {@link #register(Bulkhead)}
     * @throws NullPointerException when {@code config} is {@code null}
     */
    public Bulkhead bulkhead(BulkheadConfig config) {
        Objects.requireNonNull(config, "config");
        Entry existing = entries.get(config.name());
        if (existing == null) {
            Bulkhead created;
            Entry added = null;
            lock.lock();
            try {
                existing = entries.get(config.name());
                if (existing == null) {
                    created = new InProcessBulkhead(config);
                    added = put(created, config);
                } else {
                    created = null;
                }
            } finally {
                lock.unlock();
            }
            if (created != null) {
                announce(added);
                return created;
            }
        }
        if (!config.equals(existing.config)) {
            throw new IllegalStateException("Bulkhead '" + config.name() + "' already exists with "
                    + (existing.config == null ? "a registered implementation (" + existing.bulkhead + ")"
                    : existing.config) + "; asked again with " + config);
        }
        return existing.bulkhead;
    }

    /**
     * Adds a bulkhead made elsewhere (another implementation, or one built directly).
     *
     * @param bulkhead the bulkhead; its name is the key
     * @return {@code bulkhead}
     * @throws IllegalStateException when another bulkhead already has that name
     * @throws NullPointerException when {@code bulkhead} is {@code null}
     */
    public Bulkhead register(Bulkhead bulkhead) {
        Objects.requireNonNull(bulkhead, "bulkhead");
        Entry added;
        lock.lock();
        try {
            Entry existing = entries.get(bulkhead.name());
            if (existing != null) {
                if (existing.bulkhead == bulkhead) {
                    return bulkhead;
                }
                throw new IllegalStateException("Bulkhead '" + bulkhead.name() + "' is already registered: "
                        + existing.bulkhead);
            }
            added = put(bulkhead, null);
        } finally {
            lock.unlock();
        }
        announce(added);
        return bulkhead;
    }

    /**
     * Finds a bulkhead by name.
     *
     * @param name the name
     * @return the bulkhead, or empty
     * @throws NullPointerException when {@code name} is {@code null}
     */
    public Optional<Bulkhead> find(String name) {
        Entry entry = entries.get(Objects.requireNonNull(name, "name"));
        return entry == null ? Optional.empty() : Optional.of(entry.bulkhead);
    }

    /**
     * Removes a bulkhead from the registry (calls already using it are unaffected).
     *
     * @param name the name
     * @return whether a bulkhead was removed
     * @throws NullPointerException when {@code name} is {@code null}
     */
    public boolean remove(String name) {
        Objects.requireNonNull(name, "name");
        Entry removed;
        lock.lock();
        try {
            Map<String, Entry> copy = new LinkedHashMap<>(entries);
            removed = copy.remove(name);
            if (removed == null) {
                return false;
            }
            entries = Collections.unmodifiableMap(copy);
        } finally {
            lock.unlock();
        }
        removedListeners.each("removed", callback -> callback.accept(removed.bulkhead));
        return true;
    }

    /**
     * Calls {@code callback} with each bulkhead removed from the registry from now on, on the removing thread (so
     * that metrics bound through {@link #onAdded} can be unbound). A callback that throws is logged and does not
     * prevent the removal.
     *
     * @param callback told of each removed bulkhead
     * @return the subscription that stops later calls
     * @throws NullPointerException when {@code callback} is {@code null}
     */
    public Subscription onRemoved(Consumer<? super Bulkhead> callback) {
        return removedListeners.add(Objects.requireNonNull(callback, "callback"));
    }

    /**
     * Returns every bulkhead, in the order they were added.
     *
     * @return an immutable snapshot
     */
    public List<Bulkhead> all() {
        List<Bulkhead> all = new ArrayList<>(entries.size());
        for (Entry entry : entries.values()) {
            all.add(entry.bulkhead);
        }
        return Collections.unmodifiableList(all);
    }

    /**
     * Iterates over a snapshot of the bulkheads, in the order they were added.
     *
     * @return an iterator that does not support removal
     */
    @Override
    public Iterator<Bulkhead> iterator() {
        return all().iterator();
    }

    /**
     * Calls {@code callback} with every bulkhead already in the registry (on the calling thread, before this method
     * returns), then with each one added later, on the adding thread. A callback that throws is logged and does not
     * prevent the addition, nor its being told of the other bulkheads: a failure while it is told of the bulkheads
     * already there does not escape this method either, so the subscription it returns is the only one made.
     *
     * @param callback told of each bulkhead
     * @return the subscription that stops later calls
     * @throws NullPointerException when {@code callback} is {@code null}
     */
    public Subscription onAdded(Consumer<? super Bulkhead> callback) {
        Objects.requireNonNull(callback, "callback");
        Subscription subscription;
        List<Bulkhead> existing;
        lock.lock();
        try {
            // Additions are numbered under the lock: anything numbered up to now is in the snapshot, anything
            // later is announced, so no bulkhead is told twice or missed.
            long coveredBySnapshot = additions;
            subscription = addedListeners.add(entry -> {
                if (entry.sequence > coveredBySnapshot) {
                    callback.accept(entry.bulkhead);
                }
            });
            existing = all();
        } finally {
            lock.unlock();
        }
        // The subscription exists before the replay: a replay failure thrown from here would leave a subscription
        // that its caller never got and so can never close. Isolated and logged like later announcements instead.
        ListenerArray<Consumer<? super Bulkhead>> replay =
                ListenerArray.of("dev.bulwark", "", "bulkheads", List.of(callback));
        for (Bulkhead bulkhead : existing) {
            replay.each("added", each -> each.accept(bulkhead));
        }
        return subscription;
    }

    private Entry put(Bulkhead bulkhead, BulkheadConfig config) {
        Entry entry = new Entry(bulkhead, config, ++additions);
        Map<String, Entry> copy = new LinkedHashMap<>(entries);
        copy.put(bulkhead.name(), entry);
        entries = Collections.unmodifiableMap(copy);
        return entry;
    }

    private void announce(Entry entry) {
        addedListeners.each("added", callback -> callback.accept(entry));
    }

    @Override
    public String toString() {
        return "Bulkheads" + entries.keySet();
    }

    private static final class Entry {
        final Bulkhead bulkhead;
        final BulkheadConfig config;
        final long sequence;

        Entry(Bulkhead bulkhead, BulkheadConfig config, long sequence) {
            this.bulkhead = bulkhead;
            this.config = config;
            this.sequence = sequence;
        }
    }
}
