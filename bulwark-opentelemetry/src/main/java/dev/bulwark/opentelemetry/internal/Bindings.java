package dev.bulwark.opentelemetry.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Retry;
import dev.bulwark.Subscription;
import dev.bulwark.Timeout;
import dev.bulwark.internal.spi.RegistryBinding;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The policies bound through one {@code BulwarkTelemetry}, by kind and name, so that binding a second live policy of
 * the same name (or the same policy twice) fails instead of reporting two series with the same attributes, and so
 * that a name whose binding was closed, or whose policy was collected, can be bound again (a closed bulkhead that is
 * still reachable stays bound and keeps its name).
 *
 * <p>Thread-safe: binding and unbinding happen under one lock (rare); recording never takes it.
 */
public final class Bindings {

    private final Instruments instruments;
    private final BindingOptions options;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    private final Map<String, PolicyBinding> bound = new HashMap<>();

    /**
     * Creates an empty table.
     *
     * @param instruments the meter and shared histograms
     * @param options how bulkheads are timed, and the window of their maxima and percentiles
     */
    public Bindings(Instruments instruments, BindingOptions options) {
        this.instruments = instruments;
        this.options = options;
    }

    /**
     * Binds a bulkhead.
     *
     * @param bulkhead the bulkhead
     * @return the binding
     * @throws IllegalStateException when a live bulkhead of that name is already bound here
     */
    public Subscription bind(Bulkhead bulkhead) {
        Objects.requireNonNull(bulkhead, "bulkhead");
        return bind("bulkhead", bulkhead.name(), bulkhead, observations -> {
            BulkheadInstruments listener = BulkheadInstruments.register(instruments, bulkhead, observations, options);
            listener.attachedBy(bulkhead.addListener(listener));
            return listener;
        });
    }

    /**
     * Binds a partitioned bulkhead: its calls over all partitions and its table's occupancy.
     *
     * @param partitioned the partitioned bulkhead
     * @return the binding
     * @throws IllegalStateException when a live partitioned bulkhead of that name is already bound here
     */
    public Subscription bind(PartitionedBulkhead<?> partitioned) {
        Objects.requireNonNull(partitioned, "partitioned");
        return bind("partitioned bulkhead", partitioned.name(), partitioned, observations -> {
            PartitionedInstruments listener = PartitionedInstruments.register(instruments, partitioned, observations);
            listener.attachedBy(partitioned.addListener(listener));
            return listener;
        });
    }

    /**
     * Binds a retry.
     *
     * @param retry the retry
     * @return the binding
     * @throws IllegalStateException when a live retry of that name is already bound here
     */
    public Subscription bind(Retry retry) {
        Objects.requireNonNull(retry, "retry");
        return bind("retry", retry.name(), retry, observations -> {
            RetryInstruments listener = RetryInstruments.register(instruments, retry.name(), observations);
            listener.attachedBy(retry.addListener(listener));
            return listener;
        });
    }

    /**
     * Binds a timeout.
     *
     * @param timeout the timeout
     * @return the binding
     * @throws IllegalStateException when a live timeout of that name is already bound here
     */
    public Subscription bind(Timeout timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return bind("timeout", timeout.name(), timeout, observations -> {
            TimeoutInstruments listener = TimeoutInstruments.register(instruments, timeout.name(), observations);
            listener.attachedBy(timeout.addListener(listener));
            return listener;
        });
    }

    /**
     * Binds every bulkhead of a registry, present and future.
     *
     * @param bulkheads the registry
     * @return the binding of all of them
     */
    public Subscription bind(Bulkheads bulkheads) {
        Objects.requireNonNull(bulkheads, "bulkheads");
        return RegistryBinding.start(bulkheads, (Bulkhead bulkhead) -> bind(bulkhead),
                child -> ((PolicyBinding) child).isLive(), System.getLogger("dev.bulwark.opentelemetry"),
                "OpenTelemetry");
    }

    /** The meter and shared histograms. */
    public Instruments instruments() {
        return instruments;
    }

    private Subscription bind(String kind, String name, Object policy,
                              Function<Observations, AttachedListener> registerAndAttach) {
        String key = kind + ":" + name;
        String description = kind + " '" + name + "'";
        lock.lock();
        try {
            PolicyBinding existing = bound.get(key);
            if (existing != null) {
                if (existing.isLive()) {
                    throw new IllegalStateException("The " + description + " is already bound to this "
                            + "BulwarkTelemetry: bind a policy once, or close the earlier binding first");
                }
                existing.close(); // collected, and the cleaner has not run yet: drop its callbacks now
            }
            Observations observations = new Observations();
            AttachedListener listener;
            try {
                listener = registerAndAttach.apply(observations);
            } catch (RuntimeException | Error failure) {
                observations.close();
                throw failure;
            }
            PolicyBinding binding = new PolicyBinding(description, policy, listener, observations);
            binding.cleanable = Instruments.CLEANER.register(policy, new Unbind(this, key, binding.id, observations));
            bound.put(key, binding);
            return binding;
        } finally {
            lock.unlock();
        }
    }

    private void forget(String key, Object id) {
        lock.lock();
        try {
            PolicyBinding entry = bound.get(key);
            if (entry != null && entry.id == id) {
                bound.remove(key);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Closes a binding's callbacks and forgets it; must not refer to the policy (the cleaner runs it). */
    private static final class Unbind implements Runnable {
        private final Bindings bindings;
        private final String key;
        private final Object id;
        private final Observations observations;

        Unbind(Bindings bindings, String key, Object id, Observations observations) {
            this.bindings = bindings;
            this.key = key;
            this.id = id;
            this.observations = observations;
        }

        @Override
        public void run() {
            observations.close();
            bindings.forget(key, id);
        }
    }

    /**
     * One policy's binding. Refers to the policy and its listener only weakly, so holding it never keeps a dropped
     * policy alive. Thread-safe; {@link #close()} is idempotent.
     */
    static final class PolicyBinding implements Subscription {
        final Object id = new Object();
        private final String description;
        private final WeakReference<Object> policy;
        private final WeakReference<AttachedListener> listener;
        private final AtomicBoolean closed = new AtomicBoolean();
        volatile Cleaner.Cleanable cleanable;

        PolicyBinding(String description, Object policy, AttachedListener listener, Observations observations) {
            this.description = description;
            this.policy = new WeakReference<>(policy);
            this.listener = new WeakReference<>(listener);
        }

        boolean isLive() {
            return !closed.get() && policy.get() != null;
        }

        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            AttachedListener attached = listener.get();
            if (attached != null) {
                attached.detach();
            }
            cleanable.clean(); // runs Unbind at most once, whether the cleaner got there first or not
        }

        @Override
        public String toString() {
            return "telemetry binding of " + description + (isLive() ? "" : " (closed)");
        }
    }
}
