package dev.bulwark;

import static dev.bulwark.testing.Threads.startQueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Issue 9: LIFO queue order and eviction of the oldest waiter. */
class QueueOrderTest {

    @Test
    void lifoServesTheNewestWaiterFirst() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(5).queueOrder(QueueOrder.LIFO).build();
        Permit holder = bulkhead.acquire();
        List<Integer> order = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            int index = i;
            bulkhead.callAsync(() -> {
                order.add(index);
                return CompletableFuture.completedFuture(index);
            });
        }

        holder.close();

        assertThat(order).containsExactly(4, 3, 2, 1, 0);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aNewcomerAtAFullLifoQueueEvictsTheOldestWaiter() {
        List<Rejection> handled = new ArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().name("lifo").maxConcurrency(1).maxQueue(2)
                .queueOrder(QueueOrder.LIFO).onRejected(handled::add).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<String> oldest = bulkhead.callAsync(() -> CompletableFuture.completedFuture("oldest"));
        CompletableFuture<String> middle = bulkhead.callAsync(() -> CompletableFuture.completedFuture("middle"));

        CompletableFuture<String> newest = bulkhead.callAsync(() -> CompletableFuture.completedFuture("newest"));

        assertThat(oldest.handle((v, e) -> e).join()).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> {
                    assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.EVICTED);
                    assertThat(e.getMessage()).contains("lifo", "EVICTED");
                });
        assertThat(handled).extracting(Rejection::reason).containsExactly(Rejection.Reason.EVICTED);
        assertThat(bulkhead.queuedCount()).isEqualTo(2);
        holder.close();
        assertThat(newest).isCompletedWithValue("newest");
        assertThat(middle).isCompletedWithValue("middle");
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void anEvictedSyncWaiterIsRefusedOnItsOwnThread() throws Exception {
        List<Thread> handlerThreads = new CopyOnWriteArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).queueOrder(QueueOrder.LIFO)
                .onRejected(r -> handlerThreads.add(Thread.currentThread())).build();
        Permit holder = bulkhead.acquire();
        List<Thread> waiterThread = new CopyOnWriteArrayList<>();
        FutureTask<Throwable> oldest = startQueued(bulkhead, "oldest", () -> {
            waiterThread.add(Thread.currentThread());
            return catchThrowable(() -> bulkhead.call(() -> 1));
        });

        CompletableFuture<Permit> newest = bulkhead.acquireAsync();

        assertThat(oldest.get(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.EVICTED));
        assertThat(handlerThreads).containsExactly(waiterThread.get(0));
        holder.close();
        newest.join().close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aLifoQueueShrunkBelowItsLengthRefusesNewcomersInsteadOfEvicting() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(3).queueOrder(QueueOrder.LIFO).build();
        Permit holder = bulkhead.acquire();
        List<CompletableFuture<Permit>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queued.add(bulkhead.acquireAsync());
        }

        bulkhead.changeMaxQueue(1);
        CompletableFuture<Permit> newcomer = bulkhead.acquireAsync();

        assertThat(newcomer.handle((p, e) -> e).join()).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL));
        assertThat(queued).noneMatch(CompletableFuture::isDone);
        holder.close();
        for (int i = 2; i >= 0; i--) {
            queued.get(i).join().close();
        }
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void lifoWithoutAQueueRefusesAtOnce() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).queueOrder(QueueOrder.LIFO).build();
        try (Permit held = bulkhead.acquire()) {
            assertThat(catchThrowable(() -> bulkhead.call(() -> 1))).isInstanceOfSatisfying(
                    BulkheadRejectedException.class,
                    e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL));
        }
    }

    @Test
    void fifoStaysTheDefault() {
        assertThat(Bulkhead.builder().config().queueOrder()).isEqualTo(QueueOrder.FIFO);
    }
}
