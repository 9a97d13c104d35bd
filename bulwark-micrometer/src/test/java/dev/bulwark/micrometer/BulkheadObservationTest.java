package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.testing.ManualTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, traces: a bound bulkhead built with an {@code ObservationRegistry} makes a
 * {@code bulwark.bulkhead.admission} observation, child of the caller's, for each call that waited or was refused,
 * and none for a call that found a free slot. Micrometer's own {@link TestObservationRegistry}.
 */
class BulkheadObservationTest {

    private final ManualTime clock = new ManualTime();
    private final TestObservationRegistry observations = TestObservationRegistry.create();
    private final ExecutorService caller = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopCaller() {
        caller.shutdownNow();
    }

    private Bulkhead bind(int maxQueue) {
        Bulkhead bulkhead = Bulkhead.builder().name("inventory-db").maxConcurrency(1).maxQueue(maxQueue)
                .maxWait(Duration.ofMillis(500)).ticker(clock).scheduler(clock).build();
        BulwarkMetrics.builder(new SimpleMeterRegistry()).observationRegistry(observations).build().bind(bulkhead);
        return bulkhead;
    }

    /**
     * Holds the bulkhead's only slot and makes a call inside a current "request" observation, which is refused.
     *
     * @return the request observation
     */
    private Observation refuseUnderARequestObservation(Bulkhead bulkhead) {
        Permit holder = bulkhead.acquire();
        Observation request = Observation.start("request", observations);
        try (Observation.Scope ignored = request.openScope()) {
            assertThatThrownBy(() -> bulkhead.call(() -> "never")).isInstanceOf(BulkheadRejectedException.class);
        }
        request.stop();
        holder.close();
        return request;
    }

    @Test
    void aRefusalIsAChildOfTheCallersObservationWithItsReason() {
        Bulkhead bulkhead = bind(0);
        Observation request = refuseUnderARequestObservation(bulkhead);

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(BulkheadObservationContext.NAME, 1)
                .hasObservationWithNameEqualTo(BulkheadObservationContext.NAME).that()
                .hasBeenStarted().hasBeenStopped()
                .hasParentObservationEqualTo(request)
                .hasContextualNameEqualTo("bulkhead inventory-db")
                .hasLowCardinalityKeyValue("name", "inventory-db")
                .hasLowCardinalityKeyValue("outcome", "rejected.queue_full")
                .hasLowCardinalityKeyValue("reason", "queue_full")
                .hasHighCardinalityKeyValue("wait.seconds", "0.0")
                .satisfies(context -> {
                    assertThat(((BulkheadObservationContext) context).rejection().reason())
                            .isEqualTo(Rejection.Reason.QUEUE_FULL);
                    assertThat(((BulkheadObservationContext) context).waited()).isZero();
                });
    }

    @Test
    void aSynchronousWaitIsReportedOnTheCallersThreadWithItsDuration() throws Exception {
        Bulkhead bulkhead = bind(1);
        Permit holder = bulkhead.acquire();
        Observation[] request = new Observation[1];
        Future<String> waiting = caller.submit(() -> {
            request[0] = Observation.start("request", observations);
            try (Observation.Scope ignored = request[0].openScope()) {
                return bulkhead.call(() -> "ran");
            } finally {
                request[0].stop();
            }
        });
        await().until(() -> bulkhead.queuedCount() == 1);
        clock.advance(Duration.ofMillis(40));
        holder.close();
        assertThat(waiting.get()).isEqualTo("ran");

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(BulkheadObservationContext.NAME, 1)
                .hasObservationWithNameEqualTo(BulkheadObservationContext.NAME).that()
                .hasParentObservationEqualTo(request[0])
                .hasLowCardinalityKeyValue("outcome", "admitted")
                .hasLowCardinalityKeyValue("reason", "none")
                .hasHighCardinalityKeyValue("wait.seconds", "0.04")
                .satisfies(context -> assertThat(((BulkheadObservationContext) context).waited())
                        .isEqualTo(Duration.ofMillis(40)));
    }

    @Test
    void aSynchronousWaitTimeoutIsReportedWithTheWholeWait() throws Exception {
        Bulkhead bulkhead = bind(1);
        Permit holder = bulkhead.acquire();
        Future<Throwable> waiting = caller.submit(() -> {
            Observation request = Observation.start("request", observations);
            try (Observation.Scope ignored = request.openScope()) {
                bulkhead.call(() -> "never");
                return null;
            } catch (BulkheadRejectedException refused) {
                return refused;
            } finally {
                request.stop();
            }
        });
        await().until(() -> bulkhead.queuedCount() == 1);
        clock.advance(Duration.ofMillis(500));
        assertThat(waiting.get()).isInstanceOf(BulkheadRejectedException.class);
        holder.close();

        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(BulkheadObservationContext.NAME).that()
                .hasLowCardinalityKeyValue("outcome", "rejected.wait_timeout")
                .hasLowCardinalityKeyValue("reason", "wait_timeout")
                .hasHighCardinalityKeyValue("wait.seconds", "0.5");
    }

    /**
     * An asynchronous call's queued wait ends on another thread (the releaser's, the timer's): its observation is
     * still a child of the caller's, captured when the call started to wait, not of the one current where the wait
     * ended. On the old code it was the releaser's, or none.
     */
    @Test
    void anAsynchronousQueuedCallIsObservedUnderTheCallersObservationWhicheverThreadEndsItsWait() {
        Bulkhead bulkhead = bind(2);
        List<Observation.Context> bulkheadObservations = new CopyOnWriteArrayList<>();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof BulkheadObservationContext;
            }

            @Override
            public void onStart(Observation.Context context) {
                bulkheadObservations.add(context);
            }
        });
        Permit holder = bulkhead.acquire();
        Observation request = Observation.start("request", observations);
        CompletableFuture<String> admitted;
        CompletableFuture<String> timedOut;
        try (Observation.Scope ignored = request.openScope()) {
            admitted = bulkhead.callAsync(() -> CompletableFuture.completedFuture("later"));
        }
        clock.advance(Duration.ofMillis(30));
        Observation releaser = Observation.start("releaser", observations);
        try (Observation.Scope ignored = releaser.openScope()) {
            holder.close();
        }
        releaser.stop();
        assertThat(admitted).isCompletedWithValue("later");

        Permit again = bulkhead.acquire();
        Observation otherRequest = Observation.start("other-request", observations);
        try (Observation.Scope ignored = otherRequest.openScope()) {
            timedOut = bulkhead.callAsync(() -> CompletableFuture.completedFuture("never"));
        }
        clock.advance(Duration.ofMillis(600)); // the manual clock's timer ends the wait, with no observation current
        assertThat(timedOut).isCompletedExceptionally();
        again.close();
        request.stop();
        otherRequest.stop();

        assertThat(bulkheadObservations).extracting(context -> context.getParentObservation(),
                        context -> context.getLowCardinalityKeyValue("outcome").getValue())
                .containsExactly(tuple(request, "admitted"), tuple(otherRequest, "rejected.wait_timeout"));
    }

    @Test
    void aCallThatFindsAFreeSlotMakesNoObservation() {
        Bulkhead bulkhead = bind(1);
        Observation request = Observation.start("request", observations);
        try (Observation.Scope ignored = request.openScope()) {
            assertThat(bulkhead.call(() -> "ran")).isEqualTo("ran");
            assertThat(bulkhead.callAsync(() -> CompletableFuture.completedFuture("async")))
                    .isCompletedWithValue("async");
        }
        request.stop();

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(BulkheadObservationContext.NAME, 0);
    }

    @Test
    void withoutACurrentObservationNothingIsObserved() {
        Bulkhead bulkhead = bind(0);
        Permit holder = bulkhead.acquire();
        assertThatThrownBy(() -> bulkhead.call(() -> "never")).isInstanceOf(BulkheadRejectedException.class);
        holder.close();

        TestObservationRegistryAssert.assertThat(observations).doesNotHaveAnyObservation();
    }

    @Test
    void withoutAnObservationRegistryNothingIsObserved() {
        Bulkhead bulkhead = Bulkhead.builder().name("plain").maxConcurrency(1).maxQueue(0).build();
        BulwarkMetrics.of(new SimpleMeterRegistry()).bind(bulkhead);
        refuseUnderARequestObservation(bulkhead);

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(BulkheadObservationContext.NAME, 0);
    }
}
