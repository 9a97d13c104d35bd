package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.PARTITIONED_CALLS;
import static dev.bulwark.micrometer.MeterNames.PARTITIONED_EVICTIONS;
import static dev.bulwark.micrometer.MeterNames.PARTITIONED_EXECUTING;
import static dev.bulwark.micrometer.MeterNames.PARTITIONED_MAX_PARTITIONS;
import static dev.bulwark.micrometer.MeterNames.PARTITIONED_PARTITIONS;
import static dev.bulwark.micrometer.MeterNames.PARTITIONED_QUEUED;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;

import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.internal.binding.PartitionedObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * One partitioned bulkhead's meters: its calls by outcome over all partitions (one series per outcome, not per key,
 * so a flood of keys adds no series), fed by core's {@link PartitionedObserver}, and the occupancy of its partition
 * table. Counts are exact, one increment per event. Gauges and the eviction counter read the bulkhead through a weak
 * reference, so the binding never keeps it alive. Thread-safe and allocation-free per event.
 */
final class PartitionedMeters {

    private PartitionedMeters() {
    }

    /**
     * Registers the meters of {@code partitioned} in {@code group} and returns the listener that feeds them (not
     * yet attached).
     */
    static PartitionedObserver register(MeterGroup group, Tags tags, PartitionedBulkhead<?> partitioned) {
        MeterRegistry registry = group.registry();
        // Method references, not lambdas over the bulkhead: a gauge must reach it only weakly.
        group.add(Gauge.builder(PARTITIONED_PARTITIONS, partitioned, PartitionedBulkhead::partitionCount).tags(tags)
                .description("Partitions (keys with a bulkhead) that exist now").register(registry));
        group.add(Gauge.builder(PARTITIONED_MAX_PARTITIONS, partitioned, PartitionedBulkhead::maxPartitions)
                .tags(tags).description("The most partitions that may exist at once").register(registry));
        group.add(Gauge.builder(PARTITIONED_EXECUTING, partitioned, PartitionedBulkhead::executingCount).tags(tags)
                .description("Calls holding a slot in any partition now").register(registry));
        group.add(Gauge.builder(PARTITIONED_QUEUED, partitioned, PartitionedBulkhead::queuedCount).tags(tags)
                .description("Calls waiting in any partition's queue now").register(registry));
        group.add(FunctionCounter.builder(PARTITIONED_EVICTIONS, partitioned, PartitionedBulkhead::evictionCount)
                .tags(tags).description("Partitions evicted: idle for the idle timeout, or to make room for a new key")
                .register(registry));
        return new PartitionedObserver("BulwarkMetrics partitioned-bulkhead listener", outcome -> group.add(
                Counter.builder(PARTITIONED_CALLS).tags(tags).tag(TAG_OUTCOME, CallCounts.outcomeTag(outcome))
                        .description("Calls through the partitioned bulkhead, over all partitions, by how they ended")
                        .register(registry))::increment);
    }
}
