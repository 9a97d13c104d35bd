package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_ACTIVE_LEASES;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_CONCURRENCY_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_LEASE_DURATION;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_QUEUED_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_QUEUE_LIMIT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_REJECTION_REASON;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.Bulkheads;
import dev.bulwark.Permit;
import dev.bulwark.Subscription;
import dev.bulwark.testing.ManualTime;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The bulkhead's facts through a real OpenTelemetry SDK and its in-memory reader: names, units, exact values. */
class BulkheadTelemetryTest {

    private static final Attributes NAMED = Attributes.of(BULKHEAD_NAME, "db");

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final BulwarkTelemetry telemetry =
            BulwarkTelemetry.create(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build());
    private final ManualTime time = new ManualTime();

    @AfterEach
    void close() {
        meterProvider.close();
    }

    private static Attributes outcome(String outcome) {
        return NAMED.toBuilder().put(BULKHEAD_OUTCOME, outcome).build();
    }

    private static Attributes rejected(String reason) {
        return outcome("rejected").toBuilder().put(BULKHEAD_REJECTION_REASON, reason).build();
    }

    @Test
    void reportsLeasesQueueLimitsCallsAndDurationsExactly() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofSeconds(5)).ticker(time).scheduler(time).build();
        telemetry.bind(bulkhead);

        Permit running = bulkhead.acquire();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();
        CompletableFuture<Permit> refused = bulkhead.acquireAsync();
        Collected busy = Collected.from(reader);

        assertThat(busy.sum(BULKHEAD_ACTIVE_LEASES, NAMED)).contains(1L);
        assertThat(busy.sum(BULKHEAD_QUEUED_CALLS, NAMED)).contains(1L);
        assertThat(busy.sum(BULKHEAD_CONCURRENCY_LIMIT, NAMED)).contains(1L);
        assertThat(busy.sum(BULKHEAD_QUEUE_LIMIT, NAMED)).contains(1L);
        assertThat(busy.sum(BULKHEAD_CALLS, outcome("admitted"))).contains(1L);
        assertThat(busy.sum(BULKHEAD_CALLS, rejected("queue_full"))).contains(1L);
        assertThat(busy.sum(BULKHEAD_CALLS, rejected("wait_timeout"))).contains(0L);
        assertThat(busy.sum(BULKHEAD_CALLS, outcome("cancelled"))).contains(0L);
        assertThat(refused).isCompletedExceptionally();

        time.advance(Duration.ofSeconds(2));
        running.close();                                // held 2 s; the queued call gets the slot after 2 s
        time.advance(Duration.ofMillis(500));
        queued.join().close();                          // held 0.5 s
        Permit third = bulkhead.acquire();
        CompletableFuture<Permit> cancelled = bulkhead.acquireAsync();
        time.advance(Duration.ofMillis(250));
        cancelled.cancel(false);                        // waited 0.25 s
        CompletableFuture<Permit> timedOut = bulkhead.acquireAsync();
        time.advance(Duration.ofSeconds(5));            // waited the maximum 5 s
        assertThat(timedOut).isCompletedExceptionally();
        third.close();
        Collected after = Collected.from(reader);

        assertThat(after.sum(BULKHEAD_CALLS, outcome("admitted"))).contains(3L);
        assertThat(after.sum(BULKHEAD_CALLS, outcome("cancelled"))).contains(1L);
        assertThat(after.sum(BULKHEAD_CALLS, rejected("queue_full"))).contains(1L);
        assertThat(after.sum(BULKHEAD_CALLS, rejected("wait_timeout"))).contains(1L);
        assertThat(after.sum(BULKHEAD_ACTIVE_LEASES, NAMED)).contains(0L);
        assertThat(after.sum(BULKHEAD_QUEUED_CALLS, NAMED)).contains(0L);

        HistogramPointData admittedWaits = after.histogram(BULKHEAD_TIME_IN_QUEUE, outcome("admitted")).orElseThrow();
        assertThat(admittedWaits.getCount()).as("only the call that queued: the others found a free slot")
                .isEqualTo(1);
        assertThat(admittedWaits.getSum()).isCloseTo(2.0, within(1e-9));
        assertThat(admittedWaits.getMax()).isCloseTo(2.0, within(1e-9));
        assertThat(after.histogram(BULKHEAD_TIME_IN_QUEUE, outcome("cancelled")).orElseThrow().getSum())
                .isCloseTo(0.25, within(1e-9));
        assertThat(after.histogram(BULKHEAD_TIME_IN_QUEUE, rejected("wait_timeout")).orElseThrow().getSum())
                .isCloseTo(5.0, within(1e-9));
        assertThat(after.histogram(BULKHEAD_TIME_IN_QUEUE, rejected("queue_full")))
                .as("a full queue refuses at once: no wait to show").isEmpty();
        HistogramPointData leases = after.histogram(BULKHEAD_LEASE_DURATION, NAMED).orElseThrow();
        assertThat(leases.getCount()).isEqualTo(3);
        assertThat(leases.getSum()).isCloseTo(2.0 + 0.5 + 5.25, within(1e-9));
    }

    @Test
    void instrumentsCarryTheirUnitsDescriptionsScopeAndAdvisedBuckets() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(1).ticker(time).scheduler(time)
                .build();
        telemetry.bind(bulkhead);
        Permit running = bulkhead.acquire();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();
        time.advance(Duration.ofMillis(1));
        running.close();
        queued.join().close();
        Collected collected = Collected.from(reader);

        for (String name : new String[] {BULKHEAD_ACTIVE_LEASES, BULKHEAD_QUEUED_CALLS, BULKHEAD_CONCURRENCY_LIMIT,
            BULKHEAD_QUEUE_LIMIT, BULKHEAD_CALLS}) {
            MetricData metric = collected.require(name);
            assertThat(metric.getUnit()).as(name).isEqualTo("{call}");
            assertThat(metric.getDescription()).as(name).isNotBlank();
            assertThat(metric.getInstrumentationScopeInfo().getName()).isEqualTo("dev.bulwark");
        }
        assertThat(collected.require(BULKHEAD_CALLS).getLongSumData().isMonotonic()).isTrue();
        assertThat(collected.require(BULKHEAD_ACTIVE_LEASES).getLongSumData().isMonotonic()).isFalse();
        for (String name : new String[] {BULKHEAD_TIME_IN_QUEUE, BULKHEAD_LEASE_DURATION}) {
            MetricData metric = collected.require(name);
            assertThat(metric.getUnit()).isEqualTo("s");
            assertThat(metric.getHistogramData().getPoints().iterator().next().getBoundaries())
                    .startsWith(0.0001, 0.0005, 0.001).endsWith(10.0);
        }
    }

    @Test
    void closingTheBindingRemovesTheSeriesAndTheNameCanBeBoundAgain() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").build();
        Subscription binding = telemetry.bind(bulkhead);
        assertThatThrownBy(() -> telemetry.bind(bulkhead)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bulkhead 'db' is already bound");
        assertThatThrownBy(() -> telemetry.bind(Bulkhead.builder().name("db").build()))
                .isInstanceOf(IllegalStateException.class);
        bulkhead.run(() -> { });

        binding.close();
        binding.close();
        bulkhead.run(() -> { });

        Collected collected = Collected.from(reader);
        assertThat(collected.anyPointWith(BULKHEAD_ACTIVE_LEASES, NAMED)).isFalse();
        assertThat(collected.anyPointWith(BULKHEAD_CALLS, NAMED)).isFalse();
        Subscription again = telemetry.bind(bulkhead);
        bulkhead.run(() -> { });
        assertThat(Collected.from(reader).sum(BULKHEAD_CALLS, outcome("admitted"))).contains(1L);
        again.close();
    }

    @Test
    void bindingARegistryCoversBulkheadsAddedLaterAndUnbindsRemovedOnes() {
        Bulkheads bulkheads = Bulkheads.create();
        bulkheads.bulkhead(Bulkhead.builder().name("first").config());
        Subscription all = telemetry.bind(bulkheads);
        BulkheadConfig secondConfig = Bulkhead.builder().name("second").maxConcurrency(7).config();
        bulkheads.bulkhead(secondConfig);

        Collected both = Collected.from(reader);
        assertThat(both.sum(BULKHEAD_CONCURRENCY_LIMIT, Attributes.of(BULKHEAD_NAME, "first"))).contains(10L);
        assertThat(both.sum(BULKHEAD_CONCURRENCY_LIMIT, Attributes.of(BULKHEAD_NAME, "second"))).contains(7L);

        bulkheads.remove("first");
        Collected one = Collected.from(reader);
        assertThat(one.anyPointWith(BULKHEAD_CONCURRENCY_LIMIT, Attributes.of(BULKHEAD_NAME, "first"))).isFalse();
        assertThat(one.sum(BULKHEAD_CONCURRENCY_LIMIT, Attributes.of(BULKHEAD_NAME, "second"))).contains(7L);

        all.close();
        assertThat(Collected.from(reader).anyPointWith(BULKHEAD_CONCURRENCY_LIMIT,
                Attributes.of(BULKHEAD_NAME, "second"))).isFalse();
    }

    @Test
    void aBindingDoesNotKeepADroppedBulkheadAlive() {
        java.lang.ref.WeakReference<Bulkhead> dropped = bindAndDrop();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            System.gc();
            return dropped.get() == null;
        });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
                !Collected.from(reader).anyPointWith(BULKHEAD_CALLS, Attributes.of(BULKHEAD_NAME, "dropped")));
        // The name is free again once its bulkhead is gone.
        telemetry.bind(Bulkhead.builder().name("dropped").build()).close();
    }

    private java.lang.ref.WeakReference<Bulkhead> bindAndDrop() {
        Bulkhead bulkhead = Bulkhead.builder().name("dropped").build();
        Subscription binding = telemetry.bind(bulkhead);
        bulkhead.run(() -> { });
        assertThat(binding).isNotNull();
        return new java.lang.ref.WeakReference<>(bulkhead);
    }
}
