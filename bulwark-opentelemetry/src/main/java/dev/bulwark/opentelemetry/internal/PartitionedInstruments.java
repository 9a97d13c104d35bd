package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_ACTIVE_LEASES;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_EVICTIONS;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_PARTITIONS;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_PARTITION_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_QUEUED_CALLS;

import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.internal.binding.PartitionedObserver;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * One partitioned bulkhead's instruments: its calls by outcome over all partitions, in adders read at collection
 * and fed by core's {@link PartitionedObserver}, and its partition table's occupancy, read through a weak reference.
 * Attributes carry its name, never a key, so a flood of keys adds no series. Thread-safe; allocates nothing per call.
 */
final class PartitionedInstruments {

    private PartitionedInstruments() {
    }

    /** Registers the asynchronous instruments of {@code partitioned} and returns the listener that feeds them. */
    static PartitionedObserver register(Instruments instruments, PartitionedBulkhead<?> partitioned,
                                        Observations observations) {
        Meter meter = instruments.meter();
        Attributes named = Attributes.of(PARTITIONED_NAME, partitioned.name());
        // Callbacks capture the adders, never the listener (its subscription refers to the bulkhead).
        Attributes[] outcomeAttributes = BulkheadInstruments.outcomeAttributes(named);
        LongAdder[] calls = new LongAdder[outcomeAttributes.length];
        for (int outcome = 0; outcome < calls.length; outcome++) {
            calls[outcome] = new LongAdder();
        }
        observations.add(meter.counterBuilder(PARTITIONED_CALLS).setUnit("{call}")
                .setDescription("Calls through the partitioned bulkhead, over all partitions, by how they ended")
                .buildWithCallback(measurement -> {
                    for (int outcome = 0; outcome < calls.length; outcome++) {
                        measurement.record(calls[outcome].sum(), outcomeAttributes[outcome]);
                    }
                }));
        WeakReference<PartitionedBulkhead<?>> weak = new WeakReference<>(partitioned);
        observeState(meter, observations, weak, named, PARTITIONED_PARTITIONS, "{partition}",
                "Partitions (keys with a bulkhead) that exist now", PartitionedBulkhead::partitionCount);
        observeState(meter, observations, weak, named, PARTITIONED_PARTITION_LIMIT, "{partition}",
                "The most partitions that may exist at once", PartitionedBulkhead::maxPartitions);
        observeState(meter, observations, weak, named, PARTITIONED_ACTIVE_LEASES, "{call}",
                "Calls holding a slot in any partition now", PartitionedBulkhead::executingCount);
        observeState(meter, observations, weak, named, PARTITIONED_QUEUED_CALLS, "{call}",
                "Calls waiting in any partition's queue now", PartitionedBulkhead::queuedCount);
        observations.add(meter.counterBuilder(PARTITIONED_EVICTIONS).setUnit("{partition}")
                .setDescription("Partitions evicted: idle for the idle timeout, or to make room for a new key")
                .buildWithCallback(measurement -> {
                    PartitionedBulkhead<?> current = weak.get();
                    if (current != null) {
                        measurement.record(current.evictionCount(), named);
                    }
                }));
        return new PartitionedObserver("BulwarkTelemetry partitioned-bulkhead listener",
                outcome -> calls[outcome]::increment);
    }

    private static void observeState(Meter meter, Observations observations,
                                     WeakReference<PartitionedBulkhead<?>> partitioned, Attributes attributes,
                                     String name, String unit, String description,
                                     ToLongFunction<PartitionedBulkhead<?>> read) {
        observations.add(meter.upDownCounterBuilder(name).setUnit(unit).setDescription(description)
                .buildWithCallback(measurement -> {
                    PartitionedBulkhead<?> current = partitioned.get();
                    if (current != null) {
                        measurement.record(read.applyAsLong(current), attributes);
                    }
                }));
    }
}
