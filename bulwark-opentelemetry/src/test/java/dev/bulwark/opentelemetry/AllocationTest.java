package dev.bulwark.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.ThrowingRunnable;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The per-call cost goal: binding a bulkhead to OpenTelemetry adds no allocation per call. Compared with the same
 * bulkhead carrying an empty listener, which pays whatever the bulkhead itself allocates to report events, so that
 * the difference is the binding's (and the SDK's recording) alone.
 */
class AllocationTest {

    private static final int CALLS = 200_000;
    private static final int ROUNDS = 8;
    private static final ThrowingRunnable<RuntimeException> NOTHING = () -> { };

    @Test
    void aCallThroughABoundBulkheadAllocatesNoMoreThanWithAnEmptyListener() {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build()) {
            BulwarkTelemetry telemetry =
                    BulwarkTelemetry.create(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build());
            Bulkhead bound = Bulkhead.builder().name("hot").maxConcurrency(4).build();
            telemetry.bind(bound);
            Bulkhead listened = Bulkhead.builder().name("baseline").maxConcurrency(4)
                    .listener(new BulkheadListener() { }).build();

            // Rounds alternate between the two and the least of each counts: until the JIT has compiled (and
            // escape-analysed) the path, a round allocates more, and a loaded machine delays compilation.
            double baseline = Double.MAX_VALUE;
            double withTelemetry = Double.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++) {
                baseline = Math.min(baseline, bytesPerCall(listened));
                withTelemetry = Math.min(withTelemetry, bytesPerCall(bound));
            }

            assertThat(withTelemetry - baseline)
                    .as("bytes per call added by the binding (bound %.2f, empty listener %.2f)", withTelemetry,
                            baseline)
                    .isLessThan(1.0);
            assertThat(Collected.from(reader).sum(InstrumentNames.BULKHEAD_CALLS,
                    Attributes.of(InstrumentNames.BULKHEAD_NAME, "hot", InstrumentNames.BULKHEAD_OUTCOME, "admitted")))
                    .contains(2L * CALLS * ROUNDS);
        }
    }

    private static double bytesPerCall(Bulkhead bulkhead) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < CALLS; i++) { // warm up: JIT, the SDK's series, the adders' cells
            bulkhead.run(NOTHING);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < CALLS; i++) {
            bulkhead.run(NOTHING);
        }
        return (double) (threads.getCurrentThreadAllocatedBytes() - before) / CALLS;
    }
}
