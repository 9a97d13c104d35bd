package dev.bulwark.internal.binding;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.Subscription;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The policies bound through one metrics binder (a {@code BulwarkMetrics}, a {@code BulwarkTelemetry}), by kind and
 * name, so that binding a second live policy of the same name (or the same policy twice) fails instead of mixing or
 * doubling its series, and so that a name whose binding was closed, or whose policy was collected, can be bound
 * again (a closed bulkhead that is still reachable stays bound and keeps its name).
 *
 * <p>Each binding owns what its back end registered for it, an {@code R} (Micrometer: the group of its meters;
 * OpenTelemetry: its callbacks), which the table releases exactly once: when the binding is closed, when the
 * cleaner finds its policy collected, or when the attaching fails.
 *
 * <p>Thread-safe. Invariant: registering a binding's series, releasing them and updating the table happen under one
 * lock, so a name's stale series are released before a new binding of that name registers its own, and an entry is
 * removed only by the release of the very resources it holds (compared by identity), never by an older binding's
 * late release. Binding is rare; recording a value never takes the lock. The lock is reentrant because closing a
 * stale binding under it runs that binding's release, which takes it again.
 *
 * @param <R> what a back end registers for one policy
 */
public final class BindingTable<R> {

    private final String label;
    private final String boundTo;
    private final String cleanerThread;
    private final Consumer<R> release;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    private final Map<String, Entry<R>> bound = new HashMap<>();

    /**
     * Creates an empty table.
     *
     * @param label what a binding calls itself in its {@code toString()} ("binding", "telemetry binding")
     * @param boundTo what the policies are bound to, as the "already bound" error names it ("BulwarkTelemetry")
     * @param cleanerThread the name of the daemon thread that unbinds collected policies (one thread per name)
     * @param release removes what the back end registered for one binding; runs at most once per binding, under
     *     the table's lock, and must not refer to the bound policy
     */
    public BindingTable(String label, String boundTo, String cleanerThread, Consumer<R> release) {
        this.label = Objects.requireNonNull(label, "label");
        this.boundTo = Objects.requireNonNull(boundTo, "boundTo");
        this.cleanerThread = Objects.requireNonNull(cleanerThread, "cleanerThread");
        this.release = Objects.requireNonNull(release, "release");
    }

    /**
     * Binds one policy: registers its series in {@code resources} and attaches its listener, both through
     * {@code registerAndAttach}, unless a live policy of the same kind and name is bound here already. A binding of
     * that name whose policy was collected, and which the cleaner has not released yet, is released first.
     *
     * @param kind the policy's kind ("bulkhead", "retry"...), part of the key and of the messages
     * @param name the policy's name
     * @param policy the policy, held only weakly
     * @param resources a fresh, empty holder of what the back end registers for this policy
     * @param registerAndAttach registers the series in {@code resources}, attaches the listener to the policy (with
     *     {@link AttachedListener#attachedBy}) and returns it; when it throws, {@code resources} is released and
     *     the exception passes through
     * @return the binding; closing it detaches the listener and releases {@code resources}, idempotently
     * @throws IllegalStateException when a live policy of that kind and name is already bound here
     */
    public Subscription bind(String kind, String name, Object policy, R resources,
                             Function<R, AttachedListener> registerAndAttach) {
        String key = kind + ":" + name;
        String description = kind + " '" + name + "'";
        lock.lock();
        try {
            Entry<R> existing = bound.get(key);
            if (existing != null) {
                if (existing.binding.isLive()) {
                    throw new IllegalStateException("The " + description + " is already bound to this " + boundTo
                            + ": bind a policy once, or close the earlier binding first");
                }
                // Its policy was collected and the cleaner has not released its series yet: do it now, so that the
                // new series are registered instead of the back end handing back (or keeping) the stale ones.
                existing.binding.close();
            }
            AttachedListener listener;
            try {
                listener = registerAndAttach.apply(resources);
            } catch (RuntimeException | Error failure) {
                release.accept(resources);
                throw failure;
            }
            PolicyBinding binding = new PolicyBinding(label, description, policy, listener,
                    Cleaners.named(cleanerThread), new Unbind<>(this, key, resources));
            bound.put(key, new Entry<>(binding, resources));
            return binding;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Binds one policy as {@link #bind(String, String, Object, Object, Function)} does, in the two steps every back
     * end takes: {@code register} registers the series in {@code resources} and returns the listener that feeds
     * them, and {@code attach} attaches it to the policy (its {@code addListener}).
     *
     * @param kind the policy's kind ("bulkhead", "retry"...), part of the key and of the messages
     * @param name the policy's name
     * @param policy the policy, held only weakly
     * @param resources a fresh, empty holder of what the back end registers for this policy
     * @param register registers the series in {@code resources} and returns their listener, not yet attached
     * @param attach attaches the listener to the policy and returns what detaches it
     * @param <L> the listener
     * @return the binding; closing it detaches the listener and releases {@code resources}, idempotently
     * @throws IllegalStateException when a live policy of that kind and name is already bound here
     */
    public <L extends AttachedListener> Subscription bind(String kind, String name, Object policy, R resources,
                                                          Function<R, L> register,
                                                          Function<? super L, Subscription> attach) {
        return bind(kind, name, policy, resources, registered -> {
            L listener = register.apply(registered);
            listener.attachedBy(attach.apply(listener));
            return listener;
        });
    }

    /**
     * Binds every bulkhead of a registry, present and future, each through {@code bindOne} (which binds it in this
     * table); a bulkhead already bound here is skipped with a warning through {@code logger}. Removing a bulkhead
     * from the registry unbinds it.
     *
     * @param bulkheads the registry
     * @param bindOne binds one bulkhead through this table
     * @param logger where a skipped bulkhead is reported
     * @param what what the bulkheads are bound to, for that report and the binding's {@code toString()}
     * @return the binding of all of them; closing it unbinds everything it bound
     */
    public Subscription bindAll(Bulkheads bulkheads, Function<Bulkhead, Subscription> bindOne, System.Logger logger,
                                String what) {
        Objects.requireNonNull(bulkheads, "bulkheads");
        return RegistryBinding.start(bulkheads, bindOne, child -> ((PolicyBinding) child).isLive(), logger, what);
    }

    /** Releases a binding's resources and forgets it; runs at most once per binding (on close, or once collected). */
    private void unbind(String key, R resources) {
        lock.lock();
        try {
            release.accept(resources);
            Entry<R> entry = bound.get(key);
            if (entry != null && entry.resources == resources) {
                bound.remove(key);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The cleaner's task: it refers to the table, the key and the resources, never to the policy. */
    private static final class Unbind<R> implements Runnable {
        private final BindingTable<R> table;
        private final String key;
        private final R resources;

        Unbind(BindingTable<R> table, String key, R resources) {
            this.table = table;
            this.key = key;
            this.resources = resources;
        }

        @Override
        public void run() {
            table.unbind(key, resources);
        }
    }

    private static final class Entry<R> {
        final PolicyBinding binding;
        final R resources;

        Entry(PolicyBinding binding, R resources) {
            this.binding = binding;
            this.resources = resources;
        }
    }
}
