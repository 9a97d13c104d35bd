package dev.bulwark.opentelemetry.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Retry;
import dev.bulwark.Subscription;
import dev.bulwark.Timeout;
import dev.bulwark.internal.binding.BindingTable;
import java.util.Objects;

/**
 * The policies bound through one {@code BulwarkTelemetry}, by kind and name, so that binding a second live policy of
 * the same name (or the same policy twice) fails instead of reporting two series with the same attributes, and so
 * that a name whose binding was closed, or whose policy was collected, can be bound again (a closed bulkhead that is
 * still reachable stays bound and keeps its name). The life cycle (weak references, cleaner, the "already bound"
 * check) is core's {@link BindingTable}; each binding's resources are its {@link Observations}.
 *
 * <p>Thread-safe: binding and unbinding happen under the table's one lock (rare); recording never takes it.
 */
public final class Bindings {

    private final Instruments instruments;
    private final BindingOptions options;
    private final BindingTable<Observations> table = new BindingTable<>("telemetry binding", "BulwarkTelemetry",
            "bulwark-opentelemetry-cleaner", Observations::close);

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
        return table.bind("bulkhead", bulkhead.name(), bulkhead, new Observations(),
                observations -> BulkheadInstruments.register(instruments, bulkhead, observations, options),
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
        return table.bind("partitioned bulkhead", partitioned.name(), partitioned, new Observations(),
                observations -> PartitionedInstruments.register(instruments, partitioned, observations),
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
        return table.bind("retry", retry.name(), retry, new Observations(),
                observations -> RetryInstruments.register(instruments, retry.name(), observations),
                retry::addListener);
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
        return table.bind("timeout", timeout.name(), timeout, new Observations(),
                observations -> TimeoutInstruments.register(instruments, timeout.name(), observations),
                timeout::addListener);
    }

    /**
     * Binds every bulkhead of a registry, present and future.
     *
     * @param bulkheads the registry
     * @return the binding of all of them
     */
    public Subscription bind(Bulkheads bulkheads) {
        return table.bindAll(bulkheads, (Bulkhead bulkhead) -> bind(bulkhead),
                System.getLogger("dev.bulwark.opentelemetry"), "OpenTelemetry");
    }

    /** The meter and shared histograms. */
    public Instruments instruments() {
        return instruments;
    }
}
