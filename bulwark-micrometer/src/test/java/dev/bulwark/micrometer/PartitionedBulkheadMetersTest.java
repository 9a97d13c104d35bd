package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.Bulkhead;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Subscription;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 38, finding 4: after a flood of 10,050 keys, {@code bulwark.bulkhead.calls} stayed 0 and nothing showed the
 * attack. A bound partitioned bulkhead counts its refusals by reason, {@code PARTITION_LIMIT} among them, and shows
 * its table's occupancy, in series tagged with its name only (a flood adds no series). Before, there was no way to
 * bind a partitioned bulkhead at all.
 */
class PartitionedBulkheadMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BulwarkMetrics metrics = BulwarkMetrics.of(registry);

    private double calls(String outcome) {
        return registry.get(MeterNames.PARTITIONED_CALLS).tag("name", "tenants").tag("outcome", outcome).counter()
                .count();
    }

    private double gauge(String name) {
        return registry.get(name).tag("name", "tenants").gauge().value();
    }

    @Test
    void aFloodAtAFullTableIsCountedAndTheTableIsShownFull() {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants").maxPartitions(10)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        metrics.bind(tenants);
        CompletableFuture<Void> held = new CompletableFuture<>();
        for (int i = 0; i < 10; i++) {
            tenants.callAsync("busy-" + i, () -> held); // every partition in use: none can be evicted
        }
        for (int i = 0; i < 10_050; i++) {
            String key = "flood-" + i;
            assertThat(catchThrowable(() -> tenants.call(key, () -> 1))).isNotNull();
        }

        assertThat(calls("rejected.partition_limit")).isEqualTo(10_050);
        assertThat(calls("admitted")).isEqualTo(10);
        assertThat(gauge(MeterNames.PARTITIONED_PARTITIONS)).isEqualTo(10);
        assertThat(gauge(MeterNames.PARTITIONED_MAX_PARTITIONS)).isEqualTo(10);
        assertThat(gauge(MeterNames.PARTITIONED_EXECUTING)).isEqualTo(10);
        assertThat(gauge(MeterNames.PARTITIONED_QUEUED)).isZero();
        assertThat(registry.getMeters()).extracting(Meter::getId)
                .allSatisfy(id -> assertThat(id.getTag("name")).isEqualTo("tenants"));
        held.complete(null);
        assertThat(gauge(MeterNames.PARTITIONED_EXECUTING)).isZero();
    }

    @Test
    void evictionsAndPartitionRefusalsAreCounted() {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants").maxPartitions(2)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        metrics.bind(tenants);
        CompletableFuture<Void> held = new CompletableFuture<>();
        tenants.callAsync("a", () -> held);
        assertThat(catchThrowable(() -> tenants.call("a", () -> 1))).isNotNull(); // no queue: QUEUE_FULL
        tenants.call("b", () -> 1);
        tenants.call("c", () -> 1); // evicts b to make room

        assertThat(calls("rejected.queue_full")).isEqualTo(1);
        assertThat(registry.get(MeterNames.PARTITIONED_EVICTIONS).tag("name", "tenants").functionCounter().count())
                .isEqualTo(1);
        held.complete(null);
    }

    @Test
    void unbindingRemovesTheMetersAndANameIsBoundOnce() {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants").build();
        Subscription binding = metrics.bind(tenants);
        assertThatThrownBy(() -> metrics.bind(tenants)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partitioned bulkhead 'tenants' is already bound");

        binding.close();
        tenants.call("a", () -> 1);

        assertThat(registry.find(MeterNames.PARTITIONED_CALLS).meters()).isEmpty();
        assertThat(registry.find(MeterNames.PARTITIONED_PARTITIONS).meters()).isEmpty();
    }
}
