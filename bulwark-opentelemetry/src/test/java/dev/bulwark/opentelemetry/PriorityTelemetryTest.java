package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_PRIORITY_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_REJECTION_REASON;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.testing.PriorityRace;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Issue 16 item 2 through a real SDK reader: calls counted per priority in {@code bulwark.bulkhead.priority.calls}. */
class PriorityTelemetryTest {

    private static final List<String> OUTCOMES = List.of("admitted", "rejected", "cancelled");

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final BulwarkTelemetry telemetry =
            BulwarkTelemetry.create(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build());

    @AfterEach
    void close() {
        meterProvider.close();
    }

    private static Attributes point(Priority priority, String outcome) {
        return Attributes.of(BULKHEAD_NAME, "tenants", BULKHEAD_PRIORITY, priority.name().toLowerCase(Locale.ROOT),
                BULKHEAD_OUTCOME, outcome);
    }

    private static long calls(Collected collected, Priority priority, String outcome) {
        return collected.sum(BULKHEAD_PRIORITY_CALLS, point(priority, outcome))
                .orElseThrow(() -> new AssertionError("no point " + priority + " " + outcome));
    }

    @Test
    void everyPriorityAndOutcomeIsReportedFromTheFirstCollectionAtZero() {
        Bulkhead bulkhead = Bulkhead.builder().name("tenants").maxConcurrency(1).build();
        telemetry.bind(bulkhead);

        Collected collected = Collected.from(reader);
        MetricData metric = collected.require(BULKHEAD_PRIORITY_CALLS);
        assertThat(metric.getUnit()).isEqualTo("{call}");
        assertThat(metric.getLongSumData().isMonotonic()).as("a counter").isTrue();
        assertThat(metric.getLongSumData().getPoints()).hasSize(Priority.values().length * OUTCOMES.size());
        for (Priority priority : Priority.values()) {
            for (String outcome : OUTCOMES) {
                assertThat(calls(collected, priority, outcome)).as(priority + " " + outcome).isZero();
            }
        }
        // The per-outcome points keep their attributes: no priority on them.
        assertThat(collected.require(BULKHEAD_CALLS).getLongSumData().getPoints())
                .hasSize(2 + dev.bulwark.Rejection.Reason.values().length)
                .allSatisfy(p -> assertThat(p.getAttributes().get(BULKHEAD_PRIORITY)).isNull());
        java.lang.ref.Reference.reachabilityFence(bulkhead);
    }

    @Test
    void callsAreCountedByThePriorityTheyAskedForAndHowTheyEnded() {
        Bulkhead bulkhead = Bulkhead.builder().name("tenants").maxConcurrency(1).maxQueue(2).build();
        telemetry.bind(bulkhead);

        bulkhead.call(() -> "plain");                                      // normal, admitted
        bulkhead.call(CallOptions.priority(Priority.NORMAL), () -> "n");    // normal, admitted
        bulkhead.call(CallOptions.priority(Priority.HIGH), () -> "h");      // high, admitted
        Permit holder = bulkhead.acquireWith(CallOptions.priority(Priority.CRITICAL)); // critical, admitted
        CompletableFuture<Permit> sheddable = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.SHEDDABLE));
        CancellationSignal cancel = CancellationSignal.create();
        CompletableFuture<Permit> low = bulkhead.acquireAsyncWith(CallOptions.builder().priority(Priority.LOW)
                .signal(cancel).build());
        // The queue (2) is full: the high call evicts the sheddable one (sheddable, rejected: evicted).
        CompletableFuture<Permit> high = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.HIGH));
        cancel.cancel();                                                   // low, cancelled
        CompletableFuture<String> queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture("queued"));
        CompletableFuture<String> refused = bulkhead.callAsync(() -> CompletableFuture.completedFuture("full"));
        holder.close();                                                    // high, admitted after waiting
        high.join().close();                                               // normal, admitted after waiting
        assertThat(queued).isCompletedWithValue("queued");
        assertThat(sheddable).isCompletedExceptionally();
        assertThat(low).isCompletedExceptionally();
        assertThat(refused).as("normal, rejected: queue full").isCompletedExceptionally();

        Collected collected = Collected.from(reader);
        assertThat(calls(collected, Priority.CRITICAL, "admitted")).isEqualTo(1);
        assertThat(calls(collected, Priority.HIGH, "admitted")).isEqualTo(2);
        assertThat(calls(collected, Priority.NORMAL, "admitted")).isEqualTo(3);
        assertThat(calls(collected, Priority.LOW, "admitted")).isZero();
        assertThat(calls(collected, Priority.SHEDDABLE, "admitted")).isZero();
        assertThat(calls(collected, Priority.SHEDDABLE, "rejected")).isEqualTo(1);
        assertThat(calls(collected, Priority.NORMAL, "rejected")).isEqualTo(1);
        assertThat(calls(collected, Priority.LOW, "cancelled")).isEqualTo(1);
        for (Priority priority : List.of(Priority.CRITICAL, Priority.HIGH, Priority.LOW)) {
            assertThat(calls(collected, priority, "rejected")).as(priority + " rejected").isZero();
        }
        for (Priority priority : List.of(Priority.CRITICAL, Priority.HIGH, Priority.NORMAL, Priority.SHEDDABLE)) {
            assertThat(calls(collected, priority, "cancelled")).as(priority + " cancelled").isZero();
        }
        // Per outcome, the priorities add up to bulwark.bulkhead.calls, whose attributes stay as they were.
        Attributes named = Attributes.of(BULKHEAD_NAME, "tenants");
        assertThat(collected.sum(BULKHEAD_CALLS, named.toBuilder().put(BULKHEAD_OUTCOME, "admitted").build()))
                .contains(6L);
        assertThat(collected.sum(BULKHEAD_CALLS, named.toBuilder().put(BULKHEAD_OUTCOME, "cancelled").build()))
                .contains(1L);
        assertThat(collected.sum(BULKHEAD_CALLS, named.toBuilder().put(BULKHEAD_OUTCOME, "rejected")
                .put(BULKHEAD_REJECTION_REASON, "evicted").build())).contains(1L);
        assertThat(collected.sum(BULKHEAD_CALLS, named.toBuilder().put(BULKHEAD_OUTCOME, "rejected")
                .put(BULKHEAD_REJECTION_REASON, "queue_full").build())).contains(1L);
    }

    @Test
    void theDerivedNormalCountNeverGoesDownNorAboveTheTruthWhileCallsRaceAndIsExactWhenQuiet() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("tenants").maxConcurrency(64).build();
        telemetry.bind(bulkhead);
        int threads = 4;
        int perThread = 20_000;
        long normalCalls = threads * (long) perThread / 2;
        List<Double> seen = PriorityRace.readWhileCalling(bulkhead, threads, perThread,
                () -> calls(Collected.from(reader), Priority.NORMAL, "admitted"));
        for (int i = 0; i < seen.size(); i++) {
            assertThat(seen.get(i)).as("collection %d: never above the NORMAL calls made", i)
                    .isLessThanOrEqualTo(normalCalls);
            if (i > 0) {
                assertThat(seen.get(i)).as("collection %d: never down", i).isGreaterThanOrEqualTo(seen.get(i - 1));
            }
        }
        Collected quiet = Collected.from(reader);
        assertThat(calls(quiet, Priority.NORMAL, "admitted")).as("exact once quiet").isEqualTo(normalCalls);
        assertThat(calls(quiet, Priority.HIGH, "admitted")).isEqualTo(normalCalls);
    }
}
