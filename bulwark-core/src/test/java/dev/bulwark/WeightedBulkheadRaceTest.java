package dev.bulwark;

import static dev.bulwark.BulkheadRaceTest.assertQuiet;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.CapturingScheduler;
import dev.bulwark.testing.GatedTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: forced interleavings of weights, priority eviction and drain, in the style of {@link BulkheadRaceTest}:
 * one thread is stopped at a known point inside the bulkhead (a {@link GatedTicker} read: right after a grant's
 * compare-and-set in {@code startGranted}, or right after a timer's CAS and unlink), another does the racing action,
 * then the first goes on, and every slot must be used once and released once. The windows without a hook are
 * model-checked by {@link WeightedBulkheadLinearizabilityTest}.
 */
class WeightedBulkheadRaceTest {

    private final GatedTicker ticker = new GatedTicker();
    private final CapturingScheduler scheduler = new CapturingScheduler();
    private final List<Rejection> rejections = new CopyOnWriteArrayList<>();

    private Bulkhead.Builder builder() {
        return Bulkhead.builder().ticker(ticker).scheduler(scheduler).onRejected(rejections::add);
    }

    @Test
    @DisplayName("drain vs grant: a waiter granted just before the close keeps its slots and the drain waits for it")
    void aWaiterGrantedJustBeforeTheCloseRunsAndTheDrainCountsItsSlots() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(2).maxQueue(2).build();
        Permit holder = bulkhead.acquire(2);
        CompletableFuture<Permit> granted = bulkhead.acquireAsync(2);
        CompletableFuture<Permit> behind = bulkhead.acquireAsync(1);
        Thread releaser = new Thread(holder::close, "releaser");
        ticker.closeOn(releaser, 0);
        releaser.start();
        ticker.awaitArrival();

        // The grant's CAS is done, its future not yet completed: the drain finds only the waiter behind it.
        DrainResult result = bulkhead.drain(Duration.ZERO);
        assertThat(result.refusedWaiters()).isEqualTo(1);
        assertThat(result.stillExecuting()).isEqualTo(2);
        assertThat(behind).isCompletedExceptionally();
        ticker.open();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        Permit permit = granted.get(10, TimeUnit.SECONDS);
        assertThat(bulkhead.executingCount()).isEqualTo(2);
        permit.close();
        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();
        assertThat(rejections).extracting(Rejection::reason).containsExactly(Rejection.Reason.CLOSED);
    }

    @Test
    @DisplayName("weighted head vs release and cancel: the head cancelled while its grant is delivered "
            + "passes 2 slots on")
    void aWeightedHeadCancelledWhileItsGrantIsDeliveredPassesItsWholeWeightOn() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(2).maxQueue(3).build();
        Permit holder = bulkhead.acquire(2);
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger headRuns = new AtomicInteger();
        CompletableFuture<Integer> head = bulkhead.callAsync(CallOptions.builder().weight(2).signal(signal).build(),
                () -> {
                    headRuns.incrementAndGet();
                    return CompletableFuture.completedFuture(1);
                });
        CompletableFuture<Permit> first = bulkhead.acquireAsync(1);
        CompletableFuture<Permit> second = bulkhead.acquireAsync(1);
        Thread releaser = new Thread(holder::close, "releaser");
        ticker.closeOn(releaser, 0);
        releaser.start();
        ticker.awaitArrival();

        // The cancellation lost the CAS to the grant, but the delivery has not started: the cancel gives both slots
        // back itself, before it returns, and they go to the two light waiters at once.
        assertThat(signal.cancel()).isTrue();
        assertThat(head).isCompletedExceptionally();
        assertThat(first).isCompleted();
        assertThat(second).isCompleted();
        ticker.open();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(head.handle((value, failure) -> failure).join()).isInstanceOf(CancellationException.class);
        assertThat(headRuns).hasValue(0);
        assertThat(first).isCompleted();
        assertThat(second).isCompleted();
        first.join().close();
        second.join().close();
        assertQuiet(bulkhead, 2);
    }

    @Test
    @DisplayName("weighted head vs release: a head cancelled before the release lets both light waiters in")
    void aReleaseAfterTheWeightedHeadLeftGrantsTheLightWaitersBehindIt() {
        Bulkhead bulkhead = builder().maxConcurrency(2).maxQueue(3).build();
        Permit one = bulkhead.acquire(1);
        Permit other = bulkhead.acquire(1);
        CompletableFuture<Permit> head = bulkhead.acquireAsync(2);
        CompletableFuture<Permit> first = bulkhead.acquireAsync(1);
        CompletableFuture<Permit> second = bulkhead.acquireAsync(1);
        one.close(); // one slot free, the head needs two: nobody passes it
        assertThat(first).isNotDone();
        head.cancel(false); // the head leaves: the free slot goes to the next waiter at once
        assertThat(first).isCompleted();
        assertThat(second).isNotDone();
        other.close();
        assertThat(second).isCompleted();
        first.join().close();
        second.join().close();
        assertQuiet(bulkhead, 2);
    }

    @Test
    @DisplayName("eviction vs timeout: a waiter timing out makes room, so the newcomer evicts nobody")
    void aNewcomerArrivingWhileALowWaiterTimesOutTakesTheFreedPlaceWithoutEvicting() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(1)).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> low = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.LOW));
        Thread timer = new Thread(scheduler.task(0), "timer");
        ticker.closeOn(timer, 0);
        timer.start();
        ticker.awaitArrival();

        // The low waiter has timed out and left the queue, its future not failed yet.
        assertThat(bulkhead.queuedCount()).isZero();
        CompletableFuture<Permit> high = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.HIGH));
        assertThat(high).isNotDone();
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        ticker.open();
        timer.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(low).isCompletedExceptionally();
        assertThat(rejections).singleElement().satisfies(rejection -> {
            assertThat(rejection.reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
            assertThat(rejection.priority()).isEqualTo(Priority.LOW);
        });
        holder.close();
        high.join().close();
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("eviction vs timeout: a timer firing after the eviction does nothing more")
    void aTimerFiringAfterTheEvictionLosesAndTheVictimIsRefusedOnce() {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(1)).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> low = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.LOW));
        CompletableFuture<Permit> high = bulkhead.acquireAsyncWith(CallOptions.priority(Priority.HIGH));
        assertThat(low).isCompletedExceptionally();
        assertThat(scheduler.isCancelled(0)).isTrue();
        scheduler.task(0).run(); // a timer that had already started when it was cancelled
        assertThat(rejections).singleElement().satisfies(rejection -> {
            assertThat(rejection.reason()).isEqualTo(Rejection.Reason.EVICTED);
            assertThat(rejection.priority()).isEqualTo(Priority.LOW);
        });
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        holder.close();
        high.join().close();
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("drain vs sync waiter: a parked weighted waiter is refused with CLOSED and never runs")
    void aParkedWeightedWaiterIsRefusedByTheDrainAndNeverRuns() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(2).maxQueue(1).build();
        Permit holder = bulkhead.acquire(1);
        AtomicInteger runs = new AtomicInteger();
        var waiter = dev.bulwark.testing.Threads.startParked(bulkhead, "heavy",
                () -> bulkhead.call(CallOptions.weight(2), runs::incrementAndGet));
        assertThat(bulkhead.drain(Duration.ZERO).refusedWaiters()).isEqualTo(1);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> waiter.outcome().get(10, TimeUnit.SECONDS)))
                .hasCauseInstanceOf(BulkheadRejectedException.class);
        assertThat(runs).hasValue(0);
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }
}
