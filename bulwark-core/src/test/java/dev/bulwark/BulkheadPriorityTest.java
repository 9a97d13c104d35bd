package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Issue 16 item 2: priorities, eviction by priority and reserved headroom; sentences of docs/priorities.md. */
class BulkheadPriorityTest {

    private final List<Rejection> rejections = new CopyOnWriteArrayList<>();

    private Bulkhead.Builder builder(int limit, int queue) {
        return Bulkhead.builder().maxConcurrency(limit).maxQueue(queue).onRejected(rejections::add);
    }

    private static CompletableFuture<Permit> queue(Bulkhead bulkhead, Priority priority) {
        return bulkhead.acquireAsyncWith(CallOptions.priority(priority));
    }

    @Test
    void aFreedSlotGoesToTheOldestWaiterOfTheHighestPriority() {
        Bulkhead bulkhead = builder(1, 10).build();
        Permit holder = bulkhead.acquire();
        List<String> order = new ArrayList<>();
        List<CompletableFuture<Permit>> waiters = new ArrayList<>();
        Priority[] arrivals = {Priority.LOW, Priority.NORMAL, Priority.SHEDDABLE, Priority.CRITICAL, Priority.NORMAL,
                Priority.HIGH, Priority.CRITICAL};
        for (int i = 0; i < arrivals.length; i++) {
            String label = arrivals[i] + "#" + i;
            waiters.add(queue(bulkhead, arrivals[i]).thenApply(permit -> {
                order.add(label);
                return permit;
            }));
        }
        holder.close();
        for (int i = 0; i < arrivals.length; i++) {
            CompletableFuture<Permit> granted = waiters.stream().filter(CompletableFuture::isDone).findFirst()
                    .orElseThrow();
            waiters.remove(granted);
            granted.join().close();
        }
        assertThat(order).containsExactly("CRITICAL#3", "CRITICAL#6", "HIGH#5", "NORMAL#1", "NORMAL#4", "LOW#0",
                "SHEDDABLE#2");
        BulkheadRaceTest.assertQuiet(bulkhead, 1);
    }

    @Test
    void aNewcomerToAFullQueueEvictsTheNewestWaiterOfTheLowestLowerPriority() {
        Bulkhead bulkhead = builder(1, 3).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> lowOld = queue(bulkhead, Priority.LOW);
        CompletableFuture<Permit> lowNew = queue(bulkhead, Priority.LOW);
        CompletableFuture<Permit> normal = queue(bulkhead, Priority.NORMAL);
        CompletableFuture<Permit> high = queue(bulkhead, Priority.HIGH);

        assertThat(lowNew).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class).havingCause()
                .isInstanceOfSatisfying(BulkheadRejectedException.class, refused -> {
                    assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.EVICTED);
                    assertThat(refused.rejection().priority()).isEqualTo(Priority.LOW);
                });
        assertThat(lowOld).isNotDone();
        assertThat(bulkhead.queuedCount()).isEqualTo(3);
        holder.close();
        assertThat(high).isCompleted();
        high.join().close();
        normal.join().close();
        lowOld.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 1);
    }

    @Test
    void aNewcomerIsRefusedWhenNobodyWaitsAtALowerPriority() {
        Bulkhead bulkhead = builder(1, 2).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> first = queue(bulkhead, Priority.NORMAL);
        CompletableFuture<Permit> second = queue(bulkhead, Priority.HIGH);
        assertThat(queue(bulkhead, Priority.NORMAL)).isCompletedExceptionally();
        assertThatThrownBy(() -> bulkhead.acquireWith(CallOptions.priority(Priority.SHEDDABLE)))
                .isInstanceOfSatisfying(BulkheadRejectedException.class, refused -> {
                    assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL);
                    assertThat(refused.rejection().priority()).isEqualTo(Priority.SHEDDABLE);
                });
        assertThat(rejections).extracting(Rejection::priority).containsExactly(Priority.NORMAL, Priority.SHEDDABLE);
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();
        holder.close();
        second.join().close();
        first.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 1);
    }

    @Test
    void aDefaultCallEvictsAQueuedSheddableOneThroughTheSingleSlotPath() {
        Bulkhead bulkhead = builder(1, 1).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> sheddable = queue(bulkhead, Priority.SHEDDABLE);
        CompletableFuture<Permit> plain = bulkhead.acquireAsync();
        assertThat(sheddable).isCompletedExceptionally();
        assertThat(rejections).singleElement().satisfies(rejection -> {
            assertThat(rejection.reason()).isEqualTo(Rejection.Reason.EVICTED);
            assertThat(rejection.priority()).isEqualTo(Priority.SHEDDABLE);
        });
        holder.close();
        plain.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 1);
    }

    @Test
    void reservedSlotsAreTakenOnlyByTheirPriorityOrAHigherOne() throws Exception {
        Bulkhead bulkhead = builder(4, 5).reserve(Priority.CRITICAL, 1).reserve(Priority.HIGH, 1).build();
        Permit normal = bulkhead.acquire(2); // 4 - 2 leaves the 2 reserved slots
        assertThat(bulkhead.tryAcquire()).isEmpty();
        assertThat(bulkhead.tryAcquireWith(CallOptions.priority(Priority.LOW))).isEmpty();
        Permit high = bulkhead.tryAcquireWith(CallOptions.priority(Priority.HIGH)).orElseThrow();
        assertThat(bulkhead.tryAcquireWith(CallOptions.priority(Priority.HIGH))).isEmpty();
        Permit critical = bulkhead.tryAcquireWith(CallOptions.priority(Priority.CRITICAL)).orElseThrow();
        assertThat(bulkhead.executingCount()).isEqualTo(4);
        // A waiting NORMAL call gets a slot only once the reserves stay free.
        CompletableFuture<Permit> waiting = bulkhead.acquireAsync();
        critical.close();
        high.close();
        assertThat(waiting).isNotDone();
        normal.close();
        assertThat(waiting).isCompleted();
        waiting.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 2); // NORMAL may take only 2 of 4
        Permit all = bulkhead.acquireWith(CallOptions.builder().weight(4).priority(Priority.CRITICAL).build());
        all.close();
    }

    @Test
    void aHigherPriorityArrivingWhileLowerOnesWaitForReservedSlotsRunsAtOnce() {
        Bulkhead bulkhead = builder(2, 5).reserve(Priority.CRITICAL, 1).build();
        Permit normal = bulkhead.acquire();
        CompletableFuture<Permit> waiting = bulkhead.acquireAsync(); // would leave no reserve
        assertThat(waiting).isNotDone();
        CompletableFuture<Permit> critical = queue(bulkhead, Priority.CRITICAL);
        assertThat(critical).isCompleted();
        critical.join().close();
        assertThat(waiting).isNotDone();
        normal.close();
        waiting.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 1);
    }

    @Test
    void reservesAreCheckedWhenConfigured() {
        assertThatThrownBy(() -> Bulkhead.builder().reserve(null, 1)).hasMessage("priority");
        assertThatThrownBy(() -> Bulkhead.builder().reserve(Priority.HIGH, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slots");
        assertThatThrownBy(() -> Bulkhead.builder().reserve(Priority.SHEDDABLE, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SHEDDABLE");
        assertThatThrownBy(() -> Bulkhead.builder().maxConcurrency(3).reserve(Priority.CRITICAL, 2)
                .reserve(Priority.HIGH, 1).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reserve");
        BulkheadConfig config = Bulkhead.builder().maxConcurrency(10).reserve(Priority.CRITICAL, 2)
                .reserve(Priority.HIGH, 1).config();
        assertThat(config.reserved(Priority.CRITICAL)).isEqualTo(2);
        assertThat(config.headroom(Priority.CRITICAL)).isZero();
        assertThat(config.headroom(Priority.HIGH)).isEqualTo(2);
        assertThat(config.headroom(Priority.SHEDDABLE)).isEqualTo(3);
        assertThat(config.toBuilder().config()).isEqualTo(config);
        assertThat(config).isNotEqualTo(config.toBuilder().reserve(Priority.HIGH, 0).config());
        assertThat(config.toString()).contains("CRITICAL:2");
    }

    @Test
    void theRejectionKeepsItsSevenArgumentShapeWithNormalPriority() {
        Rejection rejection = new Rejection("b", Rejection.Reason.QUEUE_FULL, 1, 0, 1, 0, Duration.ZERO);
        assertThat(rejection.priority()).isEqualTo(Priority.NORMAL);
        assertThatThrownBy(() -> new Rejection("b", Rejection.Reason.QUEUE_FULL, 1, 0, 1, 0, Duration.ZERO, null))
                .hasMessage("priority");
    }

    @Test
    void lifoWithPrioritiesServesTheNewestOfTheHighestPriority() {
        Bulkhead bulkhead = builder(1, 3).queueOrder(QueueOrder.LIFO).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> highOld = queue(bulkhead, Priority.HIGH);
        CompletableFuture<Permit> highNew = queue(bulkhead, Priority.HIGH);
        CompletableFuture<Permit> low = queue(bulkhead, Priority.LOW);
        // Full: a NORMAL newcomer evicts the LOW waiter; another NORMAL then evicts the oldest NORMAL (LIFO rule).
        CompletableFuture<Permit> normal = queue(bulkhead, Priority.NORMAL);
        assertThat(low).isCompletedExceptionally();
        CompletableFuture<Permit> normalNew = queue(bulkhead, Priority.NORMAL);
        assertThat(normal).isCompletedExceptionally();
        holder.close();
        assertThat(highNew).isCompleted();
        highNew.join().close();
        assertThat(highOld).isCompleted();
        highOld.join().close();
        normalNew.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 1);
    }

    /** Counts each listener event by the priority it carries. */
    private static final class PerPriority implements BulkheadListener {
        final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> counts =
                new java.util.concurrent.ConcurrentHashMap<>();

        void count(String event, Priority priority) {
            counts.computeIfAbsent(event + ":" + priority, key -> new java.util.concurrent.atomic.AtomicInteger())
                    .incrementAndGet();
        }

        int of(String event, Priority priority) {
            java.util.concurrent.atomic.AtomicInteger count = counts.get(event + ":" + priority);
            return count == null ? 0 : count.get();
        }

        @Override
        public void admitted(long waitedNanos, Priority priority) {
            count("admitted", priority);
        }

        @Override
        public void cancelled(long waitedNanos, Priority priority) {
            count("cancelled", priority);
        }

        @Override
        public void rejected(Rejection rejection) {
            count("rejected", rejection.priority());
        }
    }

    @Test
    void listenersSeeEveryAdmissionAndCancellationWithItsPriority() {
        PerPriority perPriority = new PerPriority();
        java.util.concurrent.atomic.AtomicInteger plainAdmitted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger plainCancelled = new java.util.concurrent.atomic.AtomicInteger();
        BulkheadListener plain = new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                plainAdmitted.incrementAndGet();
            }

            @Override
            public void cancelled(long waitedNanos) {
                plainCancelled.incrementAndGet();
            }
        };
        Bulkhead bulkhead = builder(1, 2).listener(perPriority).listener(plain).build();

        bulkhead.call(() -> "default");                                     // NORMAL, at once
        bulkhead.call(CallOptions.priority(Priority.HIGH), () -> "high");   // at once
        bulkhead.tryAcquireWith(CallOptions.priority(Priority.LOW)).orElseThrow().close();
        Permit holder = bulkhead.acquireWith(CallOptions.priority(Priority.CRITICAL));
        CompletableFuture<Permit> sheddable = queue(bulkhead, Priority.SHEDDABLE);
        CancellationSignal cancel = CancellationSignal.create();
        CompletableFuture<Permit> cancelled = bulkhead.acquireAsyncWith(CallOptions.builder()
                .priority(Priority.LOW).signal(cancel).build());
        CompletableFuture<Permit> evicts = queue(bulkhead, Priority.HIGH); // the queue is full: SHEDDABLE is evicted
        cancel.cancel();
        holder.close();
        evicts.join().close();

        assertThat(sheddable).isCompletedExceptionally();
        assertThat(cancelled).isCompletedExceptionally();
        assertThat(perPriority.of("admitted", Priority.NORMAL)).isEqualTo(1);
        assertThat(perPriority.of("admitted", Priority.HIGH)).isEqualTo(2);
        assertThat(perPriority.of("admitted", Priority.LOW)).isEqualTo(1);
        assertThat(perPriority.of("admitted", Priority.CRITICAL)).isEqualTo(1);
        assertThat(perPriority.of("rejected", Priority.SHEDDABLE)).isEqualTo(1);
        assertThat(perPriority.of("cancelled", Priority.LOW)).isEqualTo(1);
        assertThat(perPriority.of("admitted", Priority.SHEDDABLE)).isZero();
        assertThat(plainAdmitted).as("the one-argument form still sees every admission").hasValue(5);
        assertThat(plainCancelled).hasValue(1);
        BulkheadRaceTest.assertQuiet(bulkhead, 1);
    }

    @Test
    void tryAcquireWithAHigherPriorityTakesNoFreeSlotWhileAnyoneWaitsWhereAQueueingCallWould() {
        // A heavy LOW waiter cannot take the one free slot: a HIGH newcomer is above everyone waiting.
        Bulkhead bulkhead = builder(2, 2).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> heavy = bulkhead.acquireAsyncWith(
                CallOptions.builder().weight(2).priority(Priority.LOW).build());

        assertThat(bulkhead.tryAcquireWith(CallOptions.priority(Priority.CRITICAL))).as("someone waits").isEmpty();
        Permit high = bulkhead.acquireWith(CallOptions.priority(Priority.HIGH));
        assertThat(bulkhead.executingCount()).as("the call that may queue took the free slot at once").isEqualTo(2);
        high.close();

        // The same with the free slots held back by a reserve from the NORMAL waiter: still empty.
        Bulkhead reserved = builder(4, 2).reserve(Priority.CRITICAL, 2).build();
        Permit two = reserved.acquire(2);
        CompletableFuture<Permit> normal = reserved.acquireAsync();
        assertThat(reserved.tryAcquireWith(CallOptions.priority(Priority.CRITICAL))).isEmpty();
        CompletableFuture<Permit> critical = queue(reserved, Priority.CRITICAL);
        assertThat(critical).as("granted on arrival").isCompletedWithValueMatching(permit -> permit != null);

        assertThat(rejections).isEmpty();
        critical.join().close();
        two.close();
        normal.join().close();
        BulkheadRaceTest.assertQuiet(reserved, 2);
        holder.close();
        heavy.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 2);
    }

    @Test
    void aNewcomerAboveEveryoneWaitingRunsAtOnceEvenWhileTheQueueHoldsMoreThanALoweredMaxQueue() {
        Bulkhead bulkhead = builder(2, 2).build();
        Permit holder = bulkhead.acquire();
        // A heavy LOW waiter cannot take the one free slot, and the LOW call behind it waits its turn.
        CompletableFuture<Permit> heavy = bulkhead.acquireAsyncWith(
                CallOptions.builder().weight(2).priority(Priority.LOW).build());
        CompletableFuture<Permit> light = queue(bulkhead, Priority.LOW);
        bulkhead.changeMaxQueue(1);
        assertThat(bulkhead.queuedCount()).isEqualTo(2);

        CompletableFuture<Permit> high = queue(bulkhead, Priority.HIGH);

        assertThat(high).as("higher than everyone waiting, and its slot is free").isCompletedWithValueMatching(
                permit -> permit != null);
        CompletableFuture<Permit> normal = queue(bulkhead, Priority.NORMAL);
        assertThat(normal).as("no slot free: the queue, above its limit, is full").isCompletedExceptionally();
        assertThat(rejections).singleElement().extracting(Rejection::reason).isEqualTo(Rejection.Reason.QUEUE_FULL);
        high.join().close();
        holder.close();
        heavy.join().close();
        light.join().close();
        BulkheadRaceTest.assertQuiet(bulkhead, 2);
    }
}
