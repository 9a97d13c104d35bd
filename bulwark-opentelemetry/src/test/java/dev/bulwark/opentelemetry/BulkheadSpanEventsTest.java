package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_ADMISSION_EVENT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_REJECTION_REASON;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.testing.ManualTime;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, traces: with span events on, a call that waited or was refused adds a {@code bulwark.bulkhead.admission}
 * event to the caller's span; a call that found a free slot adds none. A real OpenTelemetry SDK and its in-memory span
 * exporter.
 */
class BulkheadSpanEventsTest {

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final SdkTracerProvider tracerProvider =
            SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();
    private final Tracer tracer = sdk.getTracer("test");
    private final ManualTime clock = new ManualTime();
    private final ExecutorService caller = Executors.newSingleThreadExecutor();

    @AfterEach
    void close() {
        caller.shutdownNow();
        tracerProvider.close();
    }

    private Bulkhead bind(int maxQueue, boolean spanEvents) {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(maxQueue)
                .maxWait(Duration.ofMillis(500)).ticker(clock).scheduler(clock).build();
        BulwarkTelemetry.builder(sdk).spanEvents(spanEvents).build().bind(bulkhead);
        return bulkhead;
    }

    private void inSpan(Runnable call) {
        Span request = tracer.spanBuilder("request").startSpan();
        try (Scope ignored = request.makeCurrent()) {
            call.run();
        } finally {
            request.end();
        }
    }

    private List<EventData> requestEvents() {
        List<SpanData> finished = spans.getFinishedSpanItems();
        assertThat(finished).extracting(SpanData::getName).containsExactly("request");
        return finished.get(0).getEvents();
    }

    @Test
    void aRefusalIsAnEventOfTheCallersSpanWithItsReason() {
        Bulkhead bulkhead = bind(0, true);
        Permit holder = bulkhead.acquire();
        inSpan(() -> assertThatThrownBy(() -> bulkhead.call(() -> "never"))
                .isInstanceOf(BulkheadRejectedException.class));
        holder.close();

        assertThat(requestEvents()).singleElement().satisfies(event -> {
            assertThat(event.getName()).isEqualTo(BULKHEAD_ADMISSION_EVENT);
            assertThat(event.getAttributes()).isEqualTo(Attributes.builder().put(BULKHEAD_NAME, "db")
                    .put(BULKHEAD_OUTCOME, "rejected").put(BULKHEAD_REJECTION_REASON, "queue_full")
                    .put(BULKHEAD_TIME_IN_QUEUE_SECONDS, 0.0).build());
        });
    }

    @Test
    void aSynchronousWaitIsAnEventOfTheCallersSpanWithItsDuration() throws Exception {
        Bulkhead bulkhead = bind(1, true);
        Permit holder = bulkhead.acquire();
        Future<?> waiting = caller.submit(() -> inSpan(() -> assertThat(bulkhead.call(() -> "ran")).isEqualTo("ran")));
        await().until(() -> bulkhead.queuedCount() == 1);
        clock.advance(Duration.ofMillis(40));
        holder.close();
        waiting.get();

        assertThat(requestEvents()).singleElement().satisfies(event -> {
            assertThat(event.getName()).isEqualTo(BULKHEAD_ADMISSION_EVENT);
            assertThat(event.getAttributes()).isEqualTo(Attributes.builder().put(BULKHEAD_NAME, "db")
                    .put(BULKHEAD_OUTCOME, "admitted").put(BULKHEAD_TIME_IN_QUEUE_SECONDS, 0.04).build());
        });
    }

    @Test
    void aSynchronousWaitTimeoutIsAnEventWithTheWholeWait() throws Exception {
        Bulkhead bulkhead = bind(1, true);
        Permit holder = bulkhead.acquire();
        Future<?> waiting = caller.submit(() -> inSpan(() -> assertThatThrownBy(() -> bulkhead.call(() -> "never"))
                .isInstanceOf(BulkheadRejectedException.class)));
        await().until(() -> bulkhead.queuedCount() == 1);
        clock.advance(Duration.ofMillis(500));
        waiting.get();
        holder.close();

        assertThat(requestEvents()).singleElement().satisfies(event -> assertThat(event.getAttributes())
                .isEqualTo(Attributes.builder().put(BULKHEAD_NAME, "db").put(BULKHEAD_OUTCOME, "rejected")
                        .put(BULKHEAD_REJECTION_REASON, "wait_timeout").put(BULKHEAD_TIME_IN_QUEUE_SECONDS, 0.5)
                        .build()));
    }

    /**
     * An asynchronous call's queued wait ends on another thread (the releaser's, the timer's): its event still goes
     * to the caller's span, captured when the call started to wait, not to the span current where the wait ended.
     * On the old code it went to the releaser's span.
     */
    @Test
    void anAsynchronousQueuedCallsEventGoesToTheCallersSpanWhicheverThreadEndsItsWait() {
        Bulkhead bulkhead = bind(2, true);
        Permit holder = bulkhead.acquire();
        Span request = tracer.spanBuilder("request").startSpan();
        CompletableFuture<String> admitted;
        CompletableFuture<String> timedOut;
        try (Scope ignored = request.makeCurrent()) {
            admitted = bulkhead.callAsync(() -> CompletableFuture.completedFuture("later"));
        }
        clock.advance(Duration.ofMillis(30));
        Span releaser = tracer.spanBuilder("releaser").startSpan();
        try (Scope ignored = releaser.makeCurrent()) {
            holder.close();
        } finally {
            releaser.end();
        }
        assertThat(admitted).isCompletedWithValue("later");
        Permit again = bulkhead.acquire();
        try (Scope ignored = request.makeCurrent()) {
            timedOut = bulkhead.callAsync(() -> CompletableFuture.completedFuture("never"));
        }
        clock.advance(Duration.ofMillis(600)); // the manual clock's timer ends the wait, with no span current
        assertThat(timedOut).isCompletedExceptionally();
        again.close();
        request.end();

        assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName).containsExactly("releaser", "request");
        assertThat(spans.getFinishedSpanItems().get(0).getEvents()).as("the releaser's span").isEmpty();
        assertThat(spans.getFinishedSpanItems().get(1).getEvents())
                .extracting(event -> event.getAttributes().get(BULKHEAD_OUTCOME))
                .containsExactly("admitted", "rejected");
    }

    @Test
    void aCallThatFindsAFreeSlotAddsNoEvent() {
        Bulkhead bulkhead = bind(1, true);
        inSpan(() -> assertThat(bulkhead.call(() -> "ran")).isEqualTo("ran"));

        assertThat(requestEvents()).isEmpty();
    }

    @Test
    void offByDefault() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(0).build();
        BulwarkTelemetry.create(sdk).bind(bulkhead);
        Permit holder = bulkhead.acquire();
        inSpan(() -> assertThatThrownBy(() -> bulkhead.call(() -> "never"))
                .isInstanceOf(BulkheadRejectedException.class));
        holder.close();

        assertThat(requestEvents()).isEmpty();
    }
}
