package dev.bulwark.opentelemetry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Ticker;
import java.time.Duration;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The per-call cost goal: recording a bulkhead's events allocates nothing, in the binding or in the SDK it records
 * into. The events are fed in nanoseconds, as the listener methods hand them over after their one conversion, so that
 * the {@code Duration} the bulkhead itself creates for its listeners (the core's, not the binding's) is not counted.
 * Rounds are repeated and the least counts: until the JIT has compiled the path, a round may allocate.
 */
class RecordingAllocationTest {

    private static final int EVENTS = 200_000;
    private static final int ROUNDS = 8;

    @Test
    void recordingAdmissionsRefusalsCancellationsAndReleasesAllocatesNothing() {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        try (SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build()) {
            Instruments instruments =
                    new Instruments(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build());
            Bulkhead bulkhead = Bulkhead.builder().name("hot").build();
            // A short window, so that recorders rotate it many times during the rounds: rotating allocates nothing.
            BindingOptions options = new BindingOptions(false, Duration.ofMillis(30), 3, Ticker.system());
            BulkheadInstruments listener = BulkheadInstruments.register(instruments, bulkhead, new Observations(),
                    options);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

            // Built once: the bulkhead makes a refusal's Rejection, the binding only reads it.
            Rejection queueFull = new Rejection("hot", Rejection.Reason.QUEUE_FULL, 1, 0, 1, 0, Duration.ZERO,
                    Priority.LOW);
            Rejection waitTimeout = new Rejection("hot", Rejection.Reason.WAIT_TIMEOUT, 1, 1, 1, 1,
                    Duration.ofNanos(5_000), Priority.NORMAL);
            double least = Double.MAX_VALUE;
            for (int round = 0; round < ROUNDS; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < EVENTS; i++) {
                    listener.admitted(0, Priority.NORMAL);     // found a free slot
                    listener.released(1_000);
                    listener.admitted(2_000, Priority.HIGH);   // queued first, counted per priority too
                    listener.released(3_000);
                    listener.rejected(queueFull);
                    listener.rejected(waitTimeout);
                    listener.cancelled(4_000, Priority.SHEDDABLE);
                }
                least = Math.min(least, (double) (threads.getCurrentThreadAllocatedBytes() - before) / EVENTS);
            }

            assertThat(least).as("bytes allocated per round of seven events").isLessThan(1.0);
            assertThat(Collected.sumOfCalls(reader)).isEqualTo(5L * EVENTS * ROUNDS);
            assertThat(Collected.sumOf(reader, dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY_CALLS))
                    .as("the same calls, by priority").isEqualTo(5L * EVENTS * ROUNDS);
        }
    }
}
