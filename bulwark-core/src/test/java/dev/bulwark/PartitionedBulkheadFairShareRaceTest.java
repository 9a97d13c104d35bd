package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.bulwark.internal.timer.OffTimer;
import dev.bulwark.testing.ForwardingBulkhead;
import dev.bulwark.testing.GatedTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
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
    /**
     * The grant's delivery first disarms the waiter's timer: the scheduler's {@code cancel} runs on the granting
     * thread after the pump took the waiter out of its queue and before it completes the waiter's future. It
     * interrupts the blocked caller right there, so the interrupt meets a grant already decided (whether the caller
     * wakes before or after the delivery).
     */
    @Test
    void anInterruptRacingAGrantCancelsTheBlockingCallAndPassesItsSlotsOn() throws Exception {
        AtomicReference<Thread> interruptOnDisarm = new AtomicReference<>();
        Scheduler interrupting = (task, delay, unit) -> {
            Scheduler.Cancellable timer = Scheduler.shared().schedule(task, delay, unit);
            return () -> {
                Thread waiter = interruptOnDisarm.getAndSet(null);
                if (waiter != null) {
                    waiter.interrupt();
                }
                timer.cancel();
            };
        };
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(10)
                .maxWait(Duration.ofHours(1)).build();
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().globalLimit(global)
                .fairShares().scheduler(interrupting)
                .defaultConfig(Bulkhead.builder().maxConcurrency(2).maxQueue(10).config()).build();
        Permit held = global.acquire();
        AtomicInteger ran = new AtomicInteger();
        AtomicBoolean flagKept = new AtomicBoolean();
        FutureTask<String> blocked = new FutureTask<>(() -> {
            try {
                return partitioned.call("a", () -> {
                    ran.incrementAndGet();
                    return "ran";
                });
            } catch (CancellationException e) {
                flagKept.set(Thread.currentThread().isInterrupted());
                throw e;
            }
        });
        Thread thread = new Thread(blocked, "fair-waiter");
        thread.setDaemon(true);
        thread.start();
        await().until(() -> partitioned.fairQueuedCount() == 1);
        interruptOnDisarm.set(thread);

        held.close(); // the pump gets the slot and grants it to the waiter, which is interrupted in between

        assertThat(catchThrowable(() -> blocked.get(30, TimeUnit.SECONDS))).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(CancellationException.class);
        assertThat(ran).as("the operation of an interrupted call never runs").hasValue(0);
        assertThat(flagKept).as("the interrupt flag is kept").isTrue();
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
            assertThat(global.executingCount()).isZero();
            assertThat(global.queuedCount()).isZero();
        });
        assertThat(partitioned.partition("a").orElseThrow().executingCount()).isZero();
        assertThat(partitioned.call("a", () -> "after")).isEqualTo("after");
    }
    /**
     * A waiter's maximum wait passes on the timer thread, which removes it and cancels the pump nobody needs any
     * more. The pump's cancel (the foreign global bulkhead's future) is stopped until a second call has queued, so
     * the cancelled pump must start again and, a global slot being free, grant that call at once. Neither the
     * restart ({@code global.acquireAsync()}) nor the granted operation may run on the timer thread.
     */
    @Test
    void aPumpRestartedAfterATimeoutNeverRunsTheGlobalBulkheadOrAnOperationOnTheTimerThread() throws Exception {
        Bulkhead inner = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(10).build();
        CountDownLatch cancelling = new CountDownLatch(1);
        CountDownLatch secondQueued = new CountDownLatch(1);
        List<Boolean> acquiresOnTimer = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger acquires = new AtomicInteger();
        Bulkhead global = new ForwardingBulkhead(inner) {
            @Override
            public Optional<Duration> maxWait() {
                return Optional.of(Duration.ofMillis(50)); // the fair waiters' maximum wait, on Scheduler.shared()
            }

            @Override
            public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
                if (acquires.getAndIncrement() > 0) {
                    acquiresOnTimer.add(OffTimer.onTimerThread());
                    return delegate.acquireAsync(signal);
                }
                return new CompletableFuture<>() { // the first pump waits until cancelled
                    @Override
                    public boolean cancel(boolean mayInterruptIfRunning) {
                        cancelling.countDown();
                        try {
                            secondQueued.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return super.cancel(mayInterruptIfRunning);
                    }
                };
            }
        };
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().globalLimit(global)
                .fairShares().defaultConfig(Bulkhead.builder().maxConcurrency(2).maxQueue(10).config()).build();
        Permit held = inner.acquire();
        CompletableFuture<String> first = partitioned.callAsync("a", () -> CompletableFuture.completedFuture("a"));
        assertThat(cancelling.await(30, TimeUnit.SECONDS)).as("the first waiter timed out").isTrue();

        AtomicReference<Boolean> operationOnTimer = new AtomicReference<>();
        CompletableFuture<String> second = partitioned.callAsync("b", () -> {
            operationOnTimer.set(OffTimer.onTimerThread());
            return CompletableFuture.completedFuture("b");
        });
        assertThat(partitioned.fairQueuedCount()).isEqualTo(1);
        held.close(); // free now, so the restarted pump is granted at once
        secondQueued.countDown();

        assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("b");
        assertThat(operationOnTimer.get()).as("the granted operation ran on the timer thread").isFalse();
        assertThat(acquiresOnTimer).as("global.acquireAsync() on the timer thread").containsOnly(false);
        assertThat(catchThrowable(first::join)).cause().isInstanceOf(BulkheadRejectedException.class);
        await().untilAsserted(() -> assertThat(inner.executingCount()).isZero());
    }
}
