package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Real one-second runs of the real bulkhead. The machine may be slow and shared, so these tests assert what must
 * hold however the run was scheduled: every arrival has exactly one outcome, the limits were never exceeded, and
 * the bulkhead's listener reported one event per call. None asserts a timing.
 */
class SimulationTest {

    private static SimulationSettings.Builder oneSecond() {
        return SimulationSettings.builder().duration(Duration.ofSeconds(1)).drain(Duration.ofMillis(200)).seed(7);
    }

    private static SimulationResult run(SimulationSettings settings) {
        return new Simulation(settings).run(ProgressListener.none());
    }

    private static void assertEveryArrivalHasOneOutcome(SimulationResult result) {
        OutcomeCounts counts = result.counts();
        assertThat(counts.arrivals()).isPositive();
        assertThat(counts.count(CallOutcome.COMPLETED) + counts.count(CallOutcome.REJECTED_QUEUE_FULL)
                + counts.count(CallOutcome.REJECTED_WAIT_TIMEOUT) + counts.count(CallOutcome.REJECTED_EVICTED)
                + counts.count(CallOutcome.TIMED_OUT)
                + counts.count(CallOutcome.CANCELLED)).isEqualTo(counts.arrivals());
        assertThat(counts.count(CallOutcome.FAILED)).isZero();
        assertThat(result.unexpectedFailure()).isEmpty();
    }

    private static void assertListenerSawEveryCallOnce(SimulationResult result) {
        BulkheadEventCounts events = result.bulkheadEvents().orElseThrow();
        OutcomeCounts counts = result.counts();
        // Every call that reached the bulkhead was admitted, refused or cancelled while queued, exactly once. A call
        // on a thread of its own that had not even reached the bulkhead when the run ended reports nothing.
        long reported = events.admitted() + events.rejectedQueueFull() + events.rejectedWaitTimeout()
                + events.rejectedEvicted()
                + events.cancelledWhileQueued();
        if (result.settings().mode() == ExecutionMode.ASYNC) {
            assertThat(reported).isEqualTo(counts.arrivals());
        } else {
            assertThat(reported).isLessThanOrEqualTo(counts.arrivals())
                    .isGreaterThanOrEqualTo(counts.arrivals() - counts.count(CallOutcome.CANCELLED));
        }
        // ...refusals are the callers' refusals...
        assertThat(events.rejectedQueueFull()).isEqualTo(counts.count(CallOutcome.REJECTED_QUEUE_FULL));
        assertThat(events.rejectedWaitTimeout()).isEqualTo(counts.count(CallOutcome.REJECTED_WAIT_TIMEOUT));
        assertThat(events.rejectedEvicted()).isEqualTo(counts.count(CallOutcome.REJECTED_EVICTED));
        // ...and every slot taken was given back.
        assertThat(events.rejectedOtherwise()).isZero();
        assertThat(events.released()).isEqualTo(events.admitted());
        assertThat(result.queueWait().count()).isEqualTo(events.admitted());
    }

    @Test
    void asyncCallsAddUpAndNeverExceedTheLimits() {
        SimulationResult result = run(oneSecond().bulkhead(new BulkheadSettings(16, 32, Duration.ofMillis(50)))
                .build());

        assertEveryArrivalHasOneOutcome(result);
        assertListenerSawEveryCallOnce(result);
        assertThat(result.peakInFlight()).isBetween(1, 16);
        assertThat(result.peakQueued()).isBetween(0, 32);
        assertThat(result.timeline()).allSatisfy(sample -> {
            assertThat(sample.inFlight()).isLessThanOrEqualTo(16);
            assertThat(sample.queued()).isLessThanOrEqualTo(32);
        });
        assertThat(result.endToEnd().count()).isEqualTo(result.counts().count(CallOutcome.COMPLETED));
        assertThat(result.callStyle()).isEqualTo("callAsync");
    }

    @Test
    void callsOnAThreadEachAddUpAndNeverExceedTheLimits() {
        SimulationResult result = run(oneSecond().arrivals(new ArrivalModel.OpenLoop(new Rate(500)))
                .mode(ExecutionMode.THREADS)
                .bulkhead(new BulkheadSettings(8, 8, Duration.ofMillis(30))).build());

        assertEveryArrivalHasOneOutcome(result);
        assertListenerSawEveryCallOnce(result);
        assertThat(result.peakInFlight()).isBetween(1, 8);
        assertThat(result.peakQueued()).isBetween(0, 8);
        assertThat(result.callStyle()).startsWith("call on a");
    }

    @Test
    void closedLoopClientsAddUpAndNeverExceedTheLimits() {
        SimulationResult result = run(oneSecond()
                .arrivals(new ArrivalModel.ClosedLoop(40, Distribution.parse("exp:2ms")))
                .bulkhead(new BulkheadSettings(8, 16, null)).build());

        assertEveryArrivalHasOneOutcome(result);
        assertListenerSawEveryCallOnce(result);
        assertThat(result.peakInFlight()).isBetween(1, 8);
        assertThat(result.peakQueued()).isBetween(0, 16);
    }

    @Test
    void withoutABulkheadAnOverloadedDownstreamCollapses() {
        // Twice the downstream's capacity offered: it falls further behind every second.
        SimulationResult result = run(oneSecond().arrivals(new ArrivalModel.OpenLoop(new Rate(800)))
                .downstreamCapacity(8).bulkhead(null).build());

        assertEveryArrivalHasOneOutcome(result);
        assertThat(result.bulkheadEvents()).isEmpty();
        assertThat(result.queueWait().count()).isZero();
        assertThat(result.peakInFlight()).isGreaterThan(8);
        assertThat(result.counts().count(CallOutcome.CANCELLED)).isPositive();
        assertThat(result.littlesLaw().holds()).isFalse();
    }

    @Test
    void aLifoQueueEvictsUnderOverloadAndEveryCallIsStillAccountedFor() {
        SimulationResult result = run(oneSecond().downstreamCapacity(8).bulkhead(new BulkheadSettings(8, 8,
                Duration.ofMillis(200), dev.bulwark.QueueOrder.LIFO, null)).build());

        assertEveryArrivalHasOneOutcome(result);
        assertListenerSawEveryCallOnce(result);
        assertThat(result.counts().count(CallOutcome.REJECTED_EVICTED)).isPositive();
        assertThat(result.peakInFlight()).isBetween(1, 8);
    }

    @Test
    void anAdaptiveLimitMovesAndTheTimelineRecordsIt() {
        SimulationResult result = run(oneSecond().downstreamCapacity(10).bulkhead(new BulkheadSettings(40, 32,
                Duration.ofMillis(100), dev.bulwark.QueueOrder.FIFO,
                dev.bulwark.AdaptiveLimit.gradient().minLimit(1).maxLimit(40).windowSamples(10).build())).build());

        assertEveryArrivalHasOneOutcome(result);
        assertListenerSawEveryCallOnce(result);
        assertThat(result.timeline()).allSatisfy(sample -> assertThat(sample.limit()).isBetween(1, 40));
        assertThat(result.timeline().stream().mapToInt(Sample::limit).distinct().count()).isGreaterThan(1);
        assertThat(result.timeline()).allSatisfy(
                sample -> assertThat(sample.inFlight()).isLessThanOrEqualTo(40));
    }

    @Test
    void retriesAndTimeoutsGoThroughTheRealPolicies() {
        SimulationResult result = run(oneSecond().bulkhead(new BulkheadSettings(16, 16, Duration.ofMillis(50)))
                .retry(new RetrySettings(2, Duration.ofMillis(5))).timeout(Duration.ofMillis(30)).build());

        assertEveryArrivalHasOneOutcome(result);
        assertThat(result.peakInFlight()).isBetween(1, 16);
        assertThat(result.retries()).isPositive();
        assertThat(result.counts().count(CallOutcome.TIMED_OUT)).isLessThanOrEqualTo(result.timedOutAttempts());
        BulkheadEventCounts events = result.bulkheadEvents().orElseThrow();
        long attemptsThatReachedTheBulkhead = events.admitted() + events.rejectedQueueFull()
                + events.rejectedWaitTimeout() + events.cancelledWhileQueued();
        // Every attempt reaches the bulkhead, except retries cut off when the run ended.
        assertThat(attemptsThatReachedTheBulkhead).isLessThanOrEqualTo(result.counts().arrivals() + result.retries())
                .isGreaterThanOrEqualTo(result.counts().arrivals() + result.retries()
                        - result.counts().count(CallOutcome.CANCELLED));
        assertThat(events.released()).isEqualTo(events.admitted());
    }

    @Test
    void theSameSeedGivesTheSameArrivalsWhateverHappensToTheCalls() {
        SimulationSettings settings = SimulationSettings.builder().duration(Duration.ofMillis(400))
                .drain(Duration.ofMillis(100)).seed(12345).build();

        SimulationResult first = run(settings);
        SimulationResult second = run(settings.toBuilder().mode(ExecutionMode.THREADS).build());
        SimulationResult unprotected = run(settings.toBuilder().bulkhead(null).build());

        assertThat(second.counts().arrivals()).isEqualTo(first.counts().arrivals());
        assertThat(unprotected.counts().arrivals()).isEqualTo(first.counts().arrivals());
    }

    @Test
    void theTimelineStartsAtZeroAndEndsWithTheFinalCounts() {
        SimulationResult result = run(oneSecond().build());

        Sample first = result.timeline().get(0);
        Sample last = result.timeline().get(result.timeline().size() - 1);
        assertThat(first.elapsedNanos()).isZero();
        assertThat(last.arrivals()).isEqualTo(result.counts().arrivals());
        assertThat(last.completed()).isEqualTo(result.counts().count(CallOutcome.COMPLETED));
        assertThat(last.inFlight()).isZero();
        assertThat(result.timeline()).isSortedAccordingTo((a, b) -> Long.compare(a.elapsedNanos(), b.elapsedNanos()));
    }
}
