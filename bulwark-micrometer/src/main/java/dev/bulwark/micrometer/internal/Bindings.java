package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.TAG_NAME;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Retry;
import dev.bulwark.Subscription;
import dev.bulwark.Timeout;
import dev.bulwark.internal.binding.BindingTable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;

/**
 * The policies bound to one meter registry through one {@code BulwarkMetrics}, by kind and name, so that binding a
 * second live policy of the same name (or the same policy twice) fails instead of mixing or doubling its counts, and
 * so that a name whose policy was collected can be bound again. The life cycle (weak references, cleaner, the
 * "already bound" check) is core's {@link BindingTable}; each binding's resources are its {@link MeterGroup}.
 *
 * <p>Thread-safe: registering and removing meters and updating the table happen under the table's one lock (binding
 * is rare; recording a value never takes it).
 */
public final class Bindings {

    private final MeterRegistry registry;
    private final Tags commonTags;
    private final BindingOptions options;
    private final BindingTable<MeterGroup> table;

    /**
     * Creates an empty table.
     *
     * @param registry where meters are registered
     * @param commonTags tags added to every meter (they never use the keys this module uses)
     * @param options how bulkheads are timed, and the window of their maxima and percentiles
     */
    public Bindings(MeterRegistry registry, Tags commonTags, BindingOptions options) {
        this.registry = registry;
        this.commonTags = commonTags;
        this.options = options;
        this.table = new BindingTable<>("binding", "MeterRegistry (" + registry.getClass().getSimpleName() + ")",
                "bulwark-micrometer-cleaner", MeterGroup::removeAll);
    }

    /**
     * Returns the registry.
     *
     * @return the meter registry
     */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Returns the tags of the meters of the policy called {@code name}.
     *
     * @param name the policy's name
     * @return the common tags and the name tag
     */
    public Tags tags(String name) {
        return commonTags.and(TAG_NAME, name);
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
        return table.bind("bulkhead", bulkhead.name(), bulkhead, new MeterGroup(registry),
                group -> BulkheadMeters.register(group, tags(bulkhead.name()), bulkhead, options),
                bulkhead::addListener);
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
        return table.bind("partitioned bulkhead", partitioned.name(), partitioned, new MeterGroup(registry),
                group -> PartitionedMeters.register(group, tags(partitioned.name()), partitioned),
                partitioned::addListener);
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
        return table.bind("retry", retry.name(), retry, new MeterGroup(registry),
                group -> RetryMeters.register(group, tags(retry.name())), retry::addListener);
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
        return table.bind("timeout", timeout.name(), timeout, new MeterGroup(registry),
                group -> TimeoutMeters.register(group, tags(timeout.name())), timeout::addListener);
    }

    /**
     * Binds every bulkhead of a registry, present and future.
     *
     * @param bulkheads the registry
     * @return the binding of all of them
     */
    public Subscription bind(Bulkheads bulkheads) {
        return table.bindAll(bulkheads, (Bulkhead bulkhead) -> bind(bulkhead),
                System.getLogger("dev.bulwark.micrometer"), "metrics");
    }
}
