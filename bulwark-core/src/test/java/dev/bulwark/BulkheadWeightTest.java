package dev.bulwark;

import static dev.bulwark.testing.Threads.startParked;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.testing.CapturingScheduler;
import dev.bulwark.testing.Threads.Parked;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Issue 16 item 1: weighted calls and permits; each test is a sentence of docs/priorities.md ("Weights"). */
class BulkheadWeightTest {

    private final List<Rejection> rejections = new CopyOnWriteArrayList<>();
    private final CapturingScheduler scheduler = new CapturingScheduler();

    private Bulkhead bulkhead(int limit, int queue) {
        return Bulkhead.builder().maxConcurrency(limit).maxQueue(queue).scheduler(scheduler)
                .onRejected(rejections::add).build();
    }

    @Test
    void aWeightedCallTakesItsWeightInSlotsAndGivesBackExactlyThatOnce() throws Exception {
        Bulkhead bulkhead = bulkhead(5, 0);
        int seen = bulkhead.call(CallOptions.weight(3), bulkhead::executingCount);
        assertThat(seen).isEqualTo(3);
        assertThat(bulkhead.executingCount()).isZero();
        assertThatThrownBy(() -> bulkhead.call(CallOptions.weight(2), () -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(bulkhead.executingCount()).isZero();
        BulkheadRaceTest.assertQuiet(bulkhead, 5);
    }

    @Test
    void aWeightedPermitReleasesItsWholeWeightOnceHoweverOftenItIsClosed() {
        Bulkhead bulkhead = bulkhead(4, 0);
        Permit permit = bulkhead.acquire(3);
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        assertThat(bulkhead.tryAcquire(2)).isEmpty();
        Permit one = bulkhead.tryAcquire(1).orElseThrow();
        permit.close();
        permit.close();
        permit.close(Permit.Outcome.DROPPED);
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        one.close();
        BulkheadRaceTest.assertQuiet(bulkhead, 4);
    }

    @Test
    void aRejectionCountsSlotsInUseButWaitingCalls() {
        Bulkhead bulkhead = bulkhead(4, 1);
        Bulkhead quiet = Bulkhead.builder().maxConcurrency(4).maxQueue(1).build(); // the one-allocation refusal
        for (Bulkhead each : List.of(bulkhead, quiet)) {
            Permit three = each.acquire(3);
            CompletableFuture<Permit> two = each.acquireAsync(2);

            // One slot is free, but a call waits: refused (for the quiet one, by the one-allocation refusal).
            assertThatThrownBy(each::acquire).isInstanceOfSatisfying(BulkheadRejectedException.class,
                    refused -> {
                        assertThat(refused.rejection().executingCount()).as("slots held").isEqualTo(3);
                        assertThat(refused.rejection().queuedCount()).as("calls waiting").isEqualTo(1);
                    });

            three.close();
            two.join().close();
            BulkheadRaceTest.assertQuiet(each, 4);
        }
        assertThat(rejections).singleElement().satisfies(rejection -> {
            assertThat(rejection.executingCount()).isEqualTo(3);
            assertThat(rejection.queuedCount()).isEqualTo(1);
        });
    }

    @Test
    void aWeightAboveTheLimitFailsAtOnceNamingWeightInEveryForm() {
        Bulkhead bulkhead = bulkhead(2, 5);
        AtomicInteger runs = new AtomicInteger();
        assertThatThrownBy(() -> bulkhead.call(CallOptions.weight(3), runs::incrementAndGet))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight");
        assertThatThrownBy(() -> bulkhead.acquire(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight");
        assertThatThrownBy(() -> bulkhead.tryAcquire(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight");
        assertThat(bulkhead.acquireAsync(3)).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(IllegalArgumentException.class).withMessageContaining("weight");
        assertThat(bulkhead.callAsync(CallOptions.weight(3), () -> CompletableFuture.completedFuture(runs.get())))
                .failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(IllegalArgumentException.class);
        assertThat(runs).hasValue(0);
        assertThat(rejections).isEmpty();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void badWeightsAndPrioritiesFailAtOnceNamingTheParameter() {
        assertThatThrownBy(() -> CallOptions.weight(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight");
        assertThatThrownBy(() -> CallOptions.builder().weight(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight");
        assertThatThrownBy(() -> CallOptions.priority(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("priority");
        assertThatThrownBy(() -> CallOptions.builder().signal(null)).hasMessage("signal");
        Bulkhead bulkhead = bulkhead(2, 0);
        assertThatThrownBy(() -> bulkhead.acquire(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight");
        assertThatThrownBy(() -> bulkhead.call((CallOptions) null, () -> 1)).hasMessage("options");
        assertThatThrownBy(() -> bulkhead.acquireWith(null)).hasMessage("options");
    }

    @Test
    void optionsAreValuesAndTheDefaultsAreOneSharedConstant() {
        assertThat(CallOptions.builder().build()).isSameAs(CallOptions.defaults());
        assertThat(CallOptions.weight(1)).isSameAs(CallOptions.defaults());
        CallOptions options = CallOptions.builder().weight(2).priority(Priority.HIGH).build();
        assertThat(options).isEqualTo(CallOptions.weight(2).toBuilder().priority(Priority.HIGH).build())
                .hasSameHashCodeAs(CallOptions.weight(2).toBuilder().priority(Priority.HIGH).build());
        assertThat(options.signal()).isSameAs(CancellationSignal.none());
        assertThat(options.toString()).contains("weight=2", "HIGH");
        assertThat(CallOptions.defaults().priority()).isEqualTo(Priority.NORMAL);
    }

    @Test
    void theHeadWaiterNeedingThreeSlotsIsNotPassedByLaterOneSlotCallers() throws Exception {
        Bulkhead bulkhead = bulkhead(3, 10);
        Permit first = bulkhead.acquire(1);
        Permit second = bulkhead.acquire(1);
        CompletableFuture<Permit> heavy = bulkhead.acquireAsync(3);
        CompletableFuture<Permit> light = bulkhead.acquireAsync(1);
        // One slot is free, yet neither the light waiter nor a newcomer takes it.
        assertThat(bulkhead.executingCount()).isEqualTo(2);
        assertThat(light).isNotDone();
        assertThat(bulkhead.tryAcquire()).isEmpty();
        first.close();
        assertThat(heavy).isNotDone();
        second.close();
        assertThat(heavy).isCompleted();
        assertThat(light).isNotDone();
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        heavy.join().close();
        assertThat(light).isCompleted();
        light.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 3);
    }

    @Test
    void aReleaseOfSeveralSlotsGrantsEveryWaiterThatFitsInOrder() {
        Bulkhead bulkhead = bulkhead(4, 10);
        Permit big = bulkhead.acquire(4);
        List<CompletableFuture<Permit>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(bulkhead.acquireAsync(1));
        }
        CompletableFuture<Permit> two = bulkhead.acquireAsync(2);
        big.close();
        assertThat(waiters).allSatisfy(waiter -> assertThat(waiter).isCompleted());
        assertThat(two).isNotDone(); // 3 + 2 > 4: one slot is free, it needs two
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        waiters.get(0).join().close();
        assertThat(two).isCompleted();
        assertThat(bulkhead.executingCount()).isEqualTo(4);
        two.join().close();
        waiters.get(1).join().close();
        waiters.get(2).join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 4);
    }

    @Test
    void aSyncWeightedWaiterGetsItsSlotsWhenEnoughAreFree() throws Exception {
        Bulkhead bulkhead = bulkhead(2, 1);
        Permit holder = bulkhead.acquire(1);
        Parked<Integer> waiter = startParked(bulkhead, "heavy", () -> bulkhead.call(CallOptions.weight(2),
                bulkhead::executingCount));
        holder.close();
        assertThat(waiter.outcome().get(10, TimeUnit.SECONDS)).isEqualTo(2);
        BulkheadRaceTest.assertQuiet(bulkhead, 2);
    }

    @Test
    void anAsyncWeightedCallHoldsItsSlotsUntilItsStageCompletes() {
        Bulkhead bulkhead = bulkhead(3, 0);
        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<String> result = bulkhead.callAsync(CallOptions.weight(3), () -> stage);
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        assertThat(bulkhead.tryAcquire()).isEmpty();
        stage.complete("done");
        assertThat(result).isCompletedWithValue("done");
        BulkheadRaceTest.assertQuiet(bulkhead, 3);
    }

    @Test
    void loweringTheLimitBelowAQueuedWeightRefusesThatWaiterWithWeightExceedsLimit() {
        Bulkhead bulkhead = bulkhead(4, 5);
        Permit holder = bulkhead.acquire(4);
        CompletableFuture<Permit> heavy = bulkhead.acquireAsyncWith(CallOptions.builder().weight(3)
                .priority(Priority.HIGH).build());
        CompletableFuture<Permit> light = bulkhead.acquireAsync(2);
        bulkhead.changeMaxConcurrency(2);
        assertThat(heavy).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOfSatisfying(BulkheadRejectedException.class, refused -> {
                    assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT);
                    assertThat(refused.rejection().priority()).isEqualTo(Priority.HIGH);
                    assertThat(refused.rejection().maxConcurrency()).isEqualTo(2);
                });
        assertThat(light).isNotDone();
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        holder.close();
        assertThat(light).isCompleted();
        light.join().close();
        assertThat(rejections).extracting(Rejection::reason).containsExactly(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT);
        BulkheadRaceTest.assertQuiet(bulkhead, 2);
    }

    @Test
    void aCancelledWeightedHeadUnblocksTheWaitersBehindIt() {
        Bulkhead bulkhead = bulkhead(3, 5);
        Permit holder = bulkhead.acquire(2);
        CancellationSignal signal = CancellationSignal.create();
        CompletableFuture<Permit> heavy = bulkhead.acquireAsyncWith(CallOptions.builder().weight(3)
                .signal(signal).build());
        CompletableFuture<Permit> light = bulkhead.acquireAsync(1);
        assertThat(light).isNotDone();
        signal.cancel();
        assertThat(heavy).isCompletedExceptionally();
        assertThat(light).isCompleted();
        light.join().close();
        holder.close();
        BulkheadRaceTest.assertQuiet(bulkhead, 3);
    }

    @Test
    void aTimedOutWeightedHeadUnblocksTheWaitersBehindIt() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(3).maxQueue(5).maxWait(Duration.ofSeconds(1))
                .scheduler(scheduler).onRejected(rejections::add).build();
        Permit holder = bulkhead.acquire(2);
        CompletableFuture<Permit> heavy = bulkhead.acquireAsync(3);
        CompletableFuture<Permit> light = bulkhead.acquireAsync(1);
        scheduler.task(0).run();
        assertThat(heavy).isCompletedExceptionally();
        assertThat(rejections).singleElement().extracting(Rejection::reason).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
        assertThat(light).isCompleted();
        light.join().close();
        holder.close();
        BulkheadRaceTest.assertQuiet(bulkhead, 3);
    }

    @Test
    void lifoServesTheNewestWaiterFirstAndStaysStrictWithWeights() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(2).maxQueue(5).queueOrder(QueueOrder.LIFO).build();
        Permit holder = bulkhead.acquire(2);
        CompletableFuture<Permit> old = bulkhead.acquireAsync(1);
        CompletableFuture<Permit> newest = bulkhead.acquireAsync(2);
        holder.close();
        assertThat(newest).isCompleted();
        assertThat(old).isNotDone();
        newest.join().close();
        assertThat(old).isCompleted();
        old.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 2);
    }

    @Test
    void tryAcquireWithOptionsNeverWaitsAndNeverBargesPastAWaiter() {
        Bulkhead bulkhead = bulkhead(3, 5);
        Permit holder = bulkhead.acquire(2);
        CompletableFuture<Permit> heavy = bulkhead.acquireAsync(2);
        Optional<Permit> barging = bulkhead.tryAcquireWith(CallOptions.priority(Priority.CRITICAL));
        assertThat(barging).isEmpty();
        holder.close();
        heavy.join().close();
        CancellationSignal cancelled = CancellationSignal.create();
        cancelled.cancel();
        assertThat(bulkhead.tryAcquireWith(CallOptions.builder().weight(2).signal(cancelled).build())).isEmpty();
        BulkheadRaceTest.assertQuiet(bulkhead, 3);
    }
}
