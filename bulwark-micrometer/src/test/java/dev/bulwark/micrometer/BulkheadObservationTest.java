package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.testing.ManualTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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

    @Test
    void aRefusalIsAChildOfTheCallersObservationWithItsReason() {
        Bulkhead bulkhead = bind(0);
        Permit holder = bulkhead.acquire();
        Observation request = Observation.start("request", observations);
        try (Observation.Scope ignored = request.openScope()) {
            assertThatThrownBy(() -> bulkhead.call(() -> "never")).isInstanceOf(BulkheadRejectedException.class);
        }
        request.stop();
        holder.close();

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
     * The documented limitation: an asynchronous call's admission after a wait is reported on the releasing thread,
     * so it is observed under the observation current there (none: nothing is made), not under the caller's.
     */
    @Test
    void anAsynchronousQueuedAdmissionIsObservedOnTheReleasingThreadsObservationIfAny() {
        Bulkhead bulkhead = bind(1);
        Permit first = bulkhead.acquire();
        Observation request = Observation.start("request", observations);
        CompletableFuture<String> queued;
        try (Observation.Scope ignored = request.openScope()) {
            queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture("later"));
        }
        request.stop();
        clock.advance(Duration.ofMillis(30));
        first.close();                                     // no observation current on this thread
        assertThat(queued).isCompletedWithValue("later");
        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(BulkheadObservationContext.NAME, 0);

        Permit second = bulkhead.acquire();
        CompletableFuture<String> another;
        Observation request2 = Observation.start("request", observations);
        try (Observation.Scope ignored = request2.openScope()) {
            another = bulkhead.callAsync(() -> CompletableFuture.completedFuture("later"));
        }
        request2.stop();
        clock.advance(Duration.ofMillis(30));
        Observation releaser = Observation.start("releaser", observations);
        try (Observation.Scope ignored = releaser.openScope()) {
            second.close();
        }
        releaser.stop();
        assertThat(another).isCompletedWithValue("later");
        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(BulkheadObservationContext.NAME).that()
                .hasParentObservationEqualTo(releaser)
                .hasLowCardinalityKeyValue("outcome", "admitted");
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
        Permit holder = bulkhead.acquire();
        Observation request = Observation.start("request", observations);
        try (Observation.Scope ignored = request.openScope()) {
            assertThatThrownBy(() -> bulkhead.call(() -> "never")).isInstanceOf(BulkheadRejectedException.class);
        }
        request.stop();
        holder.close();

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(BulkheadObservationContext.NAME, 0);
    }
}
