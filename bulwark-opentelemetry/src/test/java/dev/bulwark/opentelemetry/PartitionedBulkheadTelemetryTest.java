package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_REJECTION_REASON;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_ACTIVE_LEASES;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_EVICTIONS;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_PARTITIONS;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_PARTITION_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.PARTITIONED_QUEUED_CALLS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.Bulkhead;
import dev.bulwark.PartitionedBulkhead;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 38, finding 4, through OpenTelemetry: a bound partitioned bulkhead reports its {@code PARTITION_LIMIT}
 * refusals and its table's occupancy, with its name and never a key. Before, it could not be bound.
 */
class PartitionedBulkheadTelemetryTest {

    private static final Attributes NAMED = Attributes.of(PARTITIONED_NAME, "tenants");

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final BulwarkTelemetry telemetry =
            BulwarkTelemetry.create(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build());

    @AfterEach
    void close() {
        meterProvider.close();
    }

    @Test
    void aFloodAtAFullTableIsReportedWithTheTablesOccupancy() {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants").maxPartitions(4)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config()).build();
        tenants.call("gone", () -> 1);
        telemetry.bind(tenants);
        CompletableFuture<Void> held = new CompletableFuture<>();
        for (int i = 0; i < 4; i++) {
            tenants.callAsync("busy-" + i, () -> held); // the first evicts "gone"
        }
        for (int i = 0; i < 500; i++) {
            String key = "flood-" + i;
            assertThat(catchThrowable(() -> tenants.call(key, () -> 1))).isNotNull();
        }

        Collected collected = Collected.from(reader);
        Attributes partitionLimit = NAMED.toBuilder().put(BULKHEAD_OUTCOME, "rejected")
                .put(BULKHEAD_REJECTION_REASON, "partition_limit").build();
        assertThat(collected.sum(PARTITIONED_CALLS, partitionLimit)).contains(500L);
        assertThat(collected.sum(PARTITIONED_CALLS, NAMED.toBuilder().put(BULKHEAD_OUTCOME, "admitted").build()))
                .contains(4L);
        assertThat(collected.sum(PARTITIONED_PARTITIONS, NAMED)).contains(4L);
        assertThat(collected.sum(PARTITIONED_PARTITION_LIMIT, NAMED)).contains(4L);
        assertThat(collected.sum(PARTITIONED_ACTIVE_LEASES, NAMED)).contains(4L);
        assertThat(collected.sum(PARTITIONED_QUEUED_CALLS, NAMED)).contains(0L);
        assertThat(collected.sum(PARTITIONED_EVICTIONS, NAMED)).contains(1L);
        held.complete(null);
    }
}
