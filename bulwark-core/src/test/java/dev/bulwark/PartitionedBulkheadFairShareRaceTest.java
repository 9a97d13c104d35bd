package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.testing.GatedTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Forced interleavings of the fair-share queue ({@code internal.partition.FairShares}): a thread is stopped at its
 * first ticker read inside the partitioned bulkhead (in the fair-share path, the read that stamps a waiter just
 * after its {@code tryAcquire()} on the global bulkhead failed and before it queues) while another thread frees
 * every global slot. Without the pump a waiter queuing there would never hear of the slot.
 */
class PartitionedBulkheadFairShareRaceTest {

    @Test
    void aSlotFreedBetweenAFailedTryAndTheQueuingIsNotLost() throws Exception {
        GatedTicker ticker = new GatedTicker();
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(10).build();
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().globalLimit(global)
                .fairShares().ticker(ticker)
                .defaultConfig(Bulkhead.builder().maxConcurrency(2).maxQueue(10).config()).build();
        CompletableFuture<String> holding = new CompletableFuture<>();
        CompletableFuture<String> holder = partitioned.callAsync("holder", () -> holding);

        FutureTask<String> waiting = new FutureTask<>(() -> partitioned.call("late", () -> "late"));
        Thread thread = new Thread(waiting, "late");
        thread.setDaemon(true);
        ticker.closeOn(thread, 0);
        thread.start();
        ticker.awaitArrival();

        holding.complete("held"); // the only slot comes free while the late call is between its try and its queuing
        assertThat(holder).isCompletedWithValue("held");
        assertThat(global.executingCount()).isZero();
        ticker.open();

        assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("late");
        assertThat(global.executingCount()).isZero();
        assertThat(partitioned.fairQueuedCount()).isZero();
    }

    @Test
    void aGrantRacingEachWaitersCancellationNeverLosesASlot() throws Exception {
        for (int round = 0; round < 500; round++) {
            Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(10).build();
            PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().globalLimit(global)
                    .fairShares().defaultConfig(Bulkhead.builder().maxConcurrency(2).maxQueue(10).config())
                    .build();
            CompletableFuture<String> holding = new CompletableFuture<>();
            partitioned.callAsync("holder", () -> holding);
            List<CompletableFuture<String>> waiters = new ArrayList<>();
            for (String key : List.of("a", "b", "c")) {
                waiters.add(partitioned.callAsync(key, () -> CompletableFuture.completedFuture(key)));
            }
            Thread canceller = new Thread(() -> waiters.forEach(waiter -> waiter.cancel(false)), "canceller");
            canceller.start();
            holding.complete("held"); // races the cancellations: each slot goes to a waiter or back
            canceller.join();

            await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                assertThat(global.executingCount()).isZero();
                assertThat(global.queuedCount()).isZero();
            });
            assertThat(partitioned.fairQueuedCount()).isZero();
            for (Bulkhead partition : partitioned.partitions().values()) {
                assertThat(partition.executingCount()).isZero();
            }
            assertThat(partitioned.call("after", () -> "after")).isEqualTo("after");
        }
    }
}
