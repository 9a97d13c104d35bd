package dev.bulwark.internal.bulkhead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Forced interleavings of a timeout that has won its waiter's compare-and-set but not yet unlinked the node (it
 * waits for the bulkhead's lock, which the test holds) with a close or a limit change made meanwhile: the waiter
 * behind the abandoned one must get the slots the abandonment made room for, as it would had the timeout been
 * complete first ("Abandoned waiters" in {@link SlotQueue}'s design notes). Lincheck's stress run of
 * {@code WeightedBulkheadLinearizabilityTest} found the close; both tests fail without the grant that comes first.
 */
class AbandonedWaiterRaceTest {

    private final List<Runnable> timers = new CopyOnWriteArrayList<>();

    private InProcessBulkhead bulkhead(int maxConcurrency) {
        return (InProcessBulkhead) Bulkhead.builder().name("abandoned").maxConcurrency(maxConcurrency).maxQueue(2)
                .maxWait(Duration.ofSeconds(1)).ticker(() -> 0L).scheduler((task, delay, unit) -> {
                    timers.add(task);
                    return () -> { };
                }).build();
    }

    /**
     * Fires {@code timer} on its own thread while the test holds the lock, runs {@code action} once the timeout's
     * unlink waits for it (the lock is reentrant), then lets the timeout finish.
     */
    private static <T> T whileATimeoutWaitsToUnlink(InProcessBulkhead bulkhead, Runnable timer, Supplier<T> action)
            throws InterruptedException {
        Thread timerThread = new Thread(timer, "timer");
        T result;
        bulkhead.slots.lock.lock();
        try {
            timerThread.start();
            // The timeout's CAS precedes removeAbandoned, the only lock its path takes.
            await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.slots.lock.hasQueuedThread(timerThread));
            result = action.get();
        } finally {
            bulkhead.slots.lock.unlock();
        }
        timerThread.join(TimeUnit.SECONDS.toMillis(30));
        return result;
    }

    private static Rejection.Reason reason(CompletableFuture<Permit> future) {
        Throwable failure = future.handle((value, thrown) -> thrown).join();
        return failure instanceof BulkheadRejectedException
                ? ((BulkheadRejectedException) failure).rejection().reason() : null;
    }

    @Test
    @DisplayName("close vs a timeout not yet unlinked: the waiter behind it is granted, not refused")
    void aCloseGrantsTheWaiterThatATimedOutHeadMadeRoomFor() throws Exception {
        InProcessBulkhead bulkhead = bulkhead(2);
        Permit holder = bulkhead.acquire(1);
        CompletableFuture<Permit> heavy = bulkhead.acquireAsync(2); // 1 slot free: waits
        CompletableFuture<Permit> light = bulkhead.acquireAsync(1); // strict order: waits behind it
        assertThat(timers).hasSize(2);

        DrainResult drain = whileATimeoutWaitsToUnlink(bulkhead, timers.get(0), () -> bulkhead.drain(Duration.ZERO));

        assertThat(drain.refusedWaiters()).as("nobody was left to refuse").isZero();
        assertThat(reason(heavy)).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
        assertThat(light).isCompleted().isNotCompletedExceptionally();
        assertThat(bulkhead.executingCount()).isEqualTo(2);
        assertThat(bulkhead.queuedCount()).isZero();
        light.join().close();
        holder.close();
        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();
    }

    @Test
    @DisplayName("lowered limit vs a timeout not yet unlinked: the waiter behind it is granted at the old limit")
    void aLoweredLimitGrantsAtTheOldLimitWhatATimedOutHeadMadeRoomFor() throws Exception {
        InProcessBulkhead bulkhead = bulkhead(3);
        Permit holder = bulkhead.acquire(1);
        CompletableFuture<Permit> heavy = bulkhead.acquireAsync(3); // 2 slots free: waits
        CompletableFuture<Permit> behind = bulkhead.acquireAsync(2); // strict order: waits behind it
        assertThat(timers).hasSize(2);

        whileATimeoutWaitsToUnlink(bulkhead, timers.get(0), () -> {
            bulkhead.changeMaxConcurrency(2);
            return null;
        });

        // Had the timeout been complete first, the waiter of 2 had taken the 2 free slots at the limit of 3; the
        // change to 2 then leaves it running above the new limit, as a lowered limit leaves every running call.
        assertThat(reason(heavy)).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
        assertThat(behind).isCompleted().isNotCompletedExceptionally();
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        assertThat(bulkhead.queuedCount()).isZero();
        behind.join().close();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }
}
