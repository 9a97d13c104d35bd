package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.testing.PriorityRace;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Issue 16 item 2: calls counted per priority in {@code bulwark.bulkhead.priority.calls}. */
class PriorityMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double calls(Priority priority, String outcome) {
        return registry.get(MeterNames.BULKHEAD_PRIORITY_CALLS).tag(MeterNames.TAG_NAME, "tenants")
                .tag(MeterNames.TAG_PRIORITY, priority.name().toLowerCase(Locale.ROOT))
                .tag(MeterNames.TAG_OUTCOME, outcome).functionCounter().count();
    }

    @Test
    void everyPriorityAndOutcomeIsRegisteredAtZero() {
        Bulkhead bulkhead = Bulkhead.builder().name("tenants").maxConcurrency(1).build();
        BulwarkMetrics.of(registry).bind(bulkhead);
        for (Priority priority : Priority.values()) {
            for (String outcome : List.of("admitted", "rejected", "cancelled")) {
                assertThat(calls(priority, outcome)).as(priority + " " + outcome).isZero();
            }
        }
        assertThat(registry.find(MeterNames.BULKHEAD_PRIORITY_CALLS).functionCounters()).hasSize(15);
        java.lang.ref.Reference.reachabilityFence(bulkhead);
    }

    @Test
    void callsAreCountedByThePriorityTheyAskedForAndHowTheyEnded() {
        Bulkhead bulkhead = Bulkhead.builder().name("tenants").maxConcurrency(1).maxQueue(2).build();
        BulwarkMetrics.of(registry).bind(bulkhead);

        bulkhead.call(() -> "plain");                                      // normal, admitted
        bulkhead.call(CallOptions.priority(Priority.NORMAL), () -> "n");    // normal, admitted
        bulkhead.call(CallOptions.priority(Priority.HIGH), () -> "h");      // high, admitted
        Permit holder = bulkhead.acquireWith(CallOptions.priority(Priority.CRITICAL));
        CompletableFuture<Permit> sheddable = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.SHEDDABLE));
        CancellationSignal cancel = CancellationSignal.create();
        CompletableFuture<Permit> low = bulkhead.acquireAsyncWith(CallOptions.builder().priority(Priority.LOW)
                .signal(cancel).build());
        CompletableFuture<Permit> high = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.HIGH)); // evicts
        cancel.cancel();                                                   // low, cancelled
        CompletableFuture<String> queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture("queued"));
        CompletableFuture<String> refused = bulkhead.callAsync(() -> CompletableFuture.completedFuture("full"));
        holder.close();
        high.join().close();
        assertThat(queued).isCompletedWithValue("queued");                 // normal, admitted after waiting

        assertThat(sheddable).isCompletedExceptionally();
        assertThat(low).isCompletedExceptionally();
        assertThat(refused).isCompletedExceptionally();
        assertThat(calls(Priority.NORMAL, "admitted")).isEqualTo(3.0);
        assertThat(calls(Priority.HIGH, "admitted")).isEqualTo(2.0);
        assertThat(calls(Priority.CRITICAL, "admitted")).isEqualTo(1.0);
        assertThat(calls(Priority.SHEDDABLE, "admitted")).isZero();
        assertThat(calls(Priority.SHEDDABLE, "rejected")).isEqualTo(1.0);
        assertThat(calls(Priority.NORMAL, "rejected")).as("the default call refused by the full queue").isEqualTo(1.0);
        assertThat(calls(Priority.LOW, "cancelled")).isEqualTo(1.0);
        assertThat(calls(Priority.LOW, "admitted")).isZero();
        // The per-priority counts add up to the per-outcome ones.
        double admitted = registry.get(MeterNames.BULKHEAD_CALLS).tag(MeterNames.TAG_OUTCOME, "admitted")
                .functionCounter().count();
        assertThat(admitted).isEqualTo(6.0);
    }

    @Test
    void theDerivedNormalCountNeverGoesDownNorAboveTheTruthWhileCallsRace() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("tenants").maxConcurrency(64).build();
        BulwarkMetrics.of(registry).bind(bulkhead);
        FunctionCounter normal = registry.get(MeterNames.BULKHEAD_PRIORITY_CALLS)
                .tag(MeterNames.TAG_PRIORITY, "normal").tag(MeterNames.TAG_OUTCOME, "admitted").functionCounter();
        int threads = 4;
        int perThread = 20_000;
        double ceiling = threads * perThread / 2.0;
        List<Double> seen = PriorityRace.readWhileCalling(bulkhead, threads, perThread, normal::count);
        AtomicBoolean monotonic = new AtomicBoolean(true);
        for (int i = 0; i < seen.size(); i++) {
            if (seen.get(i) > ceiling || (i > 0 && seen.get(i) < seen.get(i - 1))) {
                monotonic.set(false);
            }
        }
        assertThat(monotonic).as("never down, never above the NORMAL calls made").isTrue();
        assertThat(normal.count()).as("exact once quiet").isEqualTo(ceiling);
        assertThat(calls(Priority.HIGH, "admitted")).isEqualTo(ceiling);
    }
}
