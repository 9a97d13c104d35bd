package dev.bulwark.spring;

import dev.bulwark.BulkheadConfig;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.Subscription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The application's named policies, made from {@link BulwarkProperties}: bulkheads live in the {@link Bulkheads}
 * registry bean, retries and timeouts here. Every policy declared in the configuration is made when the context
 * starts; a name asked for that was not declared gets a policy made from {@code bulwark.defaults} (once: later
 * requests return the same instance). The annotations resolve their names here; inject it to use the same policies
 * programmatically.
 *
 * <p>Thread-safe.
 */
public final class BulwarkPolicies {

    private final Bulkheads bulkheads;
    private final BulwarkProperties properties;
    private final Map<String, dev.bulwark.Retry> retries = new ConcurrentHashMap<>();
    private final Map<String, dev.bulwark.Timeout> timeouts = new ConcurrentHashMap<>();
    private final List<Consumer<? super dev.bulwark.Retry>> retryCallbacks = new CopyOnWriteArrayList<>();
    private final List<Consumer<? super dev.bulwark.Timeout>> timeoutCallbacks = new CopyOnWriteArrayList<>();
    private final List<PartitionedBulkhead<?>> partitioned = new CopyOnWriteArrayList<>();
    private final List<Consumer<? super PartitionedBulkhead<?>>> partitionedCallbacks = new CopyOnWriteArrayList<>();

    /**
     * Makes every declared policy.
     *
     * @param bulkheads the registry the bulkheads are created in
     * @param properties the declarations
     * @throws IllegalArgumentException when a declared value is invalid (the message names the key and value: a
     *                                  value of the defaults is reported under {@code bulwark.defaults.<kind>},
     *                                  the defaults being checked first, on their own)
     */
    public BulwarkPolicies(Bulkheads bulkheads, BulwarkProperties properties) {
        this.bulkheads = Objects.requireNonNull(bulkheads, "bulkheads");
        this.properties = Objects.requireNonNull(properties, "properties");
        PolicyFactory.checkDefaults(properties.defaults());
        properties.bulkheads().keySet().forEach(this::bulkhead);
        properties.retries().keySet().forEach(this::retry);
        properties.timeouts().keySet().forEach(this::timeout);
    }

    /**
     * Returns the registry of bulkheads.
     *
     * @return the registry
     */
    public Bulkheads bulkheads() {
        return bulkheads;
    }

    /**
     * Returns the bulkhead of that name: the one in the registry, or a new one made from its declaration or the
     * defaults.
     *
     * @param name the name
     * @return the bulkhead
     * @throws IllegalArgumentException when its settings are invalid
     */
    public dev.bulwark.Bulkhead bulkhead(String name) {
        Objects.requireNonNull(name, "name");
        return bulkheads.find(name).orElseGet(() -> bulkheads.bulkhead(bulkheadConfig(name)));
    }

    /**
     * Returns the retry of that name, made from its declaration or the defaults on first use.
     *
     * @param name the name
     * @return the retry
     * @throws IllegalArgumentException when its settings are invalid
     */
    public dev.bulwark.Retry retry(String name) {
        Objects.requireNonNull(name, "name");
        dev.bulwark.Retry existing = retries.get(name);
        if (existing != null) {
            return existing;
        }
        boolean[] created = new boolean[1];
        dev.bulwark.Retry retry = retries.computeIfAbsent(name, key -> {
            created[0] = true;
            return PolicyFactory.retry(key, settings(properties.retries(), key, properties.defaults().retry()));
        });
        if (created[0]) {
            retryCallbacks.forEach(callback -> callback.accept(retry));
        }
        return retry;
    }

    /**
     * Registers a retry made elsewhere, so that the metrics bind it and the {@code bulwark} Actuator endpoint reports
     * it like a declared one. The starter registers the retries of Spring's {@code @Retryable} methods this way
     * ({@code bulwark.spring-annotations.enabled=true}). Thread-safe.
     *
     * @param retry the retry
     * @return {@code retry}
     * @throws NullPointerException when {@code retry} is {@code null}
     * @throws IllegalStateException when a retry of that name exists
     */
    public dev.bulwark.Retry register(dev.bulwark.Retry retry) {
        Objects.requireNonNull(retry, "retry");
        dev.bulwark.Retry existing = retries.putIfAbsent(retry.name(), retry);
        if (existing != null) {
            throw new IllegalStateException("a retry named '" + retry.name() + "' already exists");
        }
        retryCallbacks.forEach(callback -> callback.accept(retry));
        return retry;
    }

    /**
     * Returns the timeout of that name, made from its declaration or the defaults on first use.
     *
     * @param name the name
     * @return the timeout
     * @throws IllegalArgumentException when its settings are invalid, or no duration is set
     */
    public dev.bulwark.Timeout timeout(String name) {
        Objects.requireNonNull(name, "name");
        dev.bulwark.Timeout existing = timeouts.get(name);
        if (existing != null) {
            return existing;
        }
        boolean[] created = new boolean[1];
        dev.bulwark.Timeout timeout = timeouts.computeIfAbsent(name, key -> {
            created[0] = true;
            return PolicyFactory.timeout(key, settings(properties.timeouts(), key, properties.defaults().timeout()));
        });
        if (created[0]) {
            timeoutCallbacks.forEach(callback -> callback.accept(timeout));
        }
        return timeout;
    }

    /**
     * Registers a partitioned (per-key) bulkhead, so that the metrics bind it and the {@code bulwark} Actuator
     * endpoint reports its partition table. The starter registers the bulkhead of every keyed shedding route;
     * register your own to get the same.
     *
     * @param partitionedBulkhead the partitioned bulkhead
     * @param <K> its key type
     * @return {@code partitionedBulkhead}
     * @throws NullPointerException when {@code partitionedBulkhead} is {@code null}
     */
    public <K> PartitionedBulkhead<K> register(PartitionedBulkhead<K> partitionedBulkhead) {
        Objects.requireNonNull(partitionedBulkhead, "partitionedBulkhead");
        partitioned.add(partitionedBulkhead);
        partitionedCallbacks.forEach(callback -> callback.accept(partitionedBulkhead));
        return partitionedBulkhead;
    }

    /**
     * Returns the partitioned bulkheads registered so far, in registration order.
     *
     * @return a snapshot
     */
    public List<PartitionedBulkhead<?>> partitionedBulkheads() {
        return List.copyOf(partitioned);
    }

    /**
     * Calls {@code callback} with every partitioned bulkhead registered so far, then with each one registered later
     * (on the registering thread).
     *
     * @param callback told of each partitioned bulkhead
     * @return the subscription that stops later calls
     */
    public Subscription onPartitionedAdded(Consumer<? super PartitionedBulkhead<?>> callback) {
        return subscribe(callback, partitionedCallbacks, partitioned);
    }

    /**
     * Returns the retries made so far.
     *
     * @return a snapshot
     */
    public Collection<dev.bulwark.Retry> retries() {
        return List.copyOf(retries.values());
    }

    /**
     * Returns the timeouts made so far.
     *
     * @return a snapshot
     */
    public Collection<dev.bulwark.Timeout> timeouts() {
        return List.copyOf(timeouts.values());
    }

    /**
     * Calls {@code callback} with every retry made so far, then with each one made later (on the making thread).
     *
     * @param callback told of each retry
     * @return the subscription that stops later calls
     */
    public Subscription onRetryAdded(Consumer<? super dev.bulwark.Retry> callback) {
        return subscribe(callback, retryCallbacks, retries.values());
    }

    /**
     * Calls {@code callback} with every timeout made so far, then with each one made later (on the making thread).
     *
     * @param callback told of each timeout
     * @return the subscription that stops later calls
     */
    public Subscription onTimeoutAdded(Consumer<? super dev.bulwark.Timeout> callback) {
        return subscribe(callback, timeoutCallbacks, timeouts.values());
    }

    private static <P> Subscription subscribe(Consumer<? super P> callback, List<Consumer<? super P>> callbacks,
                                              Collection<P> existing) {
        Objects.requireNonNull(callback, "callback");
        // Policies made while subscribing may be told twice; BulwarkMetrics refuses a second binding of a live
        // policy, and the callbacks of this module ignore that refusal.
        callbacks.add(callback);
        for (P policy : new ArrayList<>(existing)) {
            callback.accept(policy);
        }
        return () -> callbacks.remove(callback);
    }

    private BulkheadConfig bulkheadConfig(String name) {
        return PolicyFactory.bulkheadConfig(name,
                settings(properties.bulkheads(), name, properties.defaults().bulkhead()));
    }

    private static BulwarkProperties.BulkheadSettings settings(Map<String, BulwarkProperties.BulkheadSettings> named,
                                                               String name,
                                                               BulwarkProperties.BulkheadSettings defaults) {
        BulwarkProperties.BulkheadSettings own = named.get(name);
        return own == null ? defaults : own.over(defaults);
    }

    private static BulwarkProperties.RetrySettings settings(Map<String, BulwarkProperties.RetrySettings> named,
                                                            String name, BulwarkProperties.RetrySettings defaults) {
        BulwarkProperties.RetrySettings own = named.get(name);
        return own == null ? defaults : own.over(defaults);
    }

    private static BulwarkProperties.TimeoutSettings settings(Map<String, BulwarkProperties.TimeoutSettings> named,
                                                              String name,
                                                              BulwarkProperties.TimeoutSettings defaults) {
        BulwarkProperties.TimeoutSettings own = named.get(name);
        return own == null ? defaults : own.over(defaults);
    }

    @Override
    public String toString() {
        return "BulwarkPolicies[bulkheads=" + bulkheads + ", retries=" + retries.keySet() + ", timeouts="
                + timeouts.keySet() + "]";
    }
}
