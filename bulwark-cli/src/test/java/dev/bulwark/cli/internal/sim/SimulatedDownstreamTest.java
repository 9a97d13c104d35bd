package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.Ticker;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The real-time driver of the model: its scheduler thread completes futures; abort ends them. */
class SimulatedDownstreamTest {

    @Test
    void completesACallWhenItsWorkIsDone() throws Exception {
        try (SimulatedDownstream downstream = new SimulatedDownstream(4, 1.0, Ticker.system())) {
            CompletableFuture<Void> call = downstream.call(1_000_000L);

            call.get(10, TimeUnit.SECONDS);

            DownstreamStatistics statistics = downstream.takeStatistics();
            assertThat(statistics.completed()).isEqualTo(1);
            assertThat(statistics.completedNanos()).isGreaterThanOrEqualTo(1_000_000L - 20_000L);
            assertThat(statistics.peakInFlight()).isEqualTo(1);
        }
    }

    @Test
    void callsStartedFromACompletionOnTheSchedulerThreadRunToo() throws Exception {
        // A bulkhead starts the next queued call on the thread that completes the previous one.
        try (SimulatedDownstream downstream = new SimulatedDownstream(1, 1.0, Ticker.system())) {
            AtomicInteger started = new AtomicInteger();
            CountDownLatch lastDone = new CountDownLatch(1);
            chain(downstream, started, 50, lastDone);

            assertThat(lastDone.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(started).hasValue(50);
            assertThat(downstream.takeStatistics().peakInFlight()).isEqualTo(1);
        }
    }

    private static void chain(SimulatedDownstream downstream, AtomicInteger started, int remaining,
                              CountDownLatch lastDone) {
        started.incrementAndGet();
        downstream.call(10_000L).thenRun(() -> {
            if (remaining > 1) {
                chain(downstream, started, remaining - 1, lastDone);
            } else {
                lastDone.countDown();
            }
        });
    }

    @Test
    void abortEndsCallsInFlightAndRefusesLaterOnes() {
        try (SimulatedDownstream downstream = new SimulatedDownstream(4, 1.0, Ticker.system())) {
            CompletableFuture<Void> longCall = downstream.call(3_600_000_000_000L);

            downstream.abortAll();

            assertThatThrownBy(() -> longCall.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
            assertThat(downstream.inFlight()).isZero();
            assertThat(downstream.call(1L)).isCompletedExceptionally();
            assertThat(downstream.takeStatistics().aborted()).isEqualTo(1);
        }
    }

    @Test
    void aCancelledFutureDoesNotStopTheWork() throws Exception {
        // A caller that gives up (a timeout) does not tell the downstream, which goes on with the work.
        try (SimulatedDownstream downstream = new SimulatedDownstream(1, 1.0, Ticker.system())) {
            CompletableFuture<Void> abandoned = downstream.call(5_000_000L);
            abandoned.cancel(false);
            CompletableFuture<Void> next = downstream.call(1_000L);

            next.get(10, TimeUnit.SECONDS);
            assertThat(downstream.takeStatistics().peakInFlight()).isEqualTo(2);
        }
    }
}
