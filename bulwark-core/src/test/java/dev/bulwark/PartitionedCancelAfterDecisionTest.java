package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The per-key form of {@link CancelAfterDecisionTest}: a caller's {@code cancel} of a queued per-key call, after a
 * close or a timeout decided the wait's fate but before the future failed (the deciding thread held inside the
 * overflow handler), is refused, and the future fails with the decided refusal. One test per place a per-key call
 * waits: its key's queue, the global bulkhead's queue, and the fair-share queue. Each fails when the returned future
 * is a plain {@code CompletableFuture} (its cancel wins).
 */
class PartitionedCancelAfterDecisionTest {

    private final CountDownLatch inHandler = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean held = new AtomicBoolean();
    private final List<Runnable> timers = new CopyOnWriteArrayList<>();

    /** Holds the first thread that reports a refusal other than a full queue, until the test lets it go. */
    private final Consumer<Rejection> holdDecidingThread = rejection -> {
        if (rejection.reason() != Rejection.Reason.QUEUE_FULL && held.compareAndSet(false, true)) {
            inHandler.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> release.getCount() == 0);
        }
    };

    private final Scheduler capturingScheduler = (task, delay, unit) -> {
        timers.add(task);
        return () -> { };
    };

    private static final CompletableFuture<String> NEVER = new CompletableFuture<>();

    private static Rejection.Reason reason(CompletableFuture<String> future) {
        Throwable failure = future.handle((value, thrown) -> thrown).join();
        return failure instanceof BulkheadRejectedException
                ? ((BulkheadRejectedException) failure).rejection().reason() : null;
    }

    private void cancelWhileTheDecidingThreadIsHeld(CompletableFuture<String> waiter, Runnable decide,
                                                    Rejection.Reason decided) throws InterruptedException {
        Thread decider = new Thread(decide, "decider");
        decider.start();
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();

        assertThat(waiter.cancel(false)).as("the fate was decided first").isFalse();
        release.countDown();
        decider.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(reason(waiter)).isEqualTo(decided);
        assertThat(waiter.isCancelled()).isFalse();
    }

    @Test
    @DisplayName("queued in its key's bulkhead: a cancel after the drain refused the call fails")
    void keyQueue() throws Exception {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).maxQueue(2).onRejected(holdDecidingThread)
                        .config())
                .build();
        CompletableFuture<String> holder = tenants.callAsync("a", () -> NEVER);
        CompletableFuture<String> waiter = tenants.callAsync("a", () -> CompletableFuture.completedFuture("ran"));
        assertThat(tenants.partition("a").orElseThrow().queuedCount()).isOne();

        cancelWhileTheDecidingThreadIsHeld(waiter, () -> tenants.drain(Duration.ZERO), Rejection.Reason.CLOSED);
        assertThat(holder).isNotDone();
    }

    @Test
    @DisplayName("queued in the global bulkhead: a cancel after the timer timed the call out fails")
    void globalQueue() throws Exception {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(2)
                .maxWait(Duration.ofSeconds(1)).ticker(() -> 0L).scheduler(capturingScheduler)
                .onRejected(holdDecidingThread).build();
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants")
                .globalLimit(global).defaultConfig(Bulkhead.builder().maxConcurrency(10).config()).build();
        tenants.callAsync("a", () -> NEVER);
        CompletableFuture<String> waiter = tenants.callAsync("b", () -> CompletableFuture.completedFuture("ran"));
        assertThat(global.queuedCount()).isOne();

        cancelWhileTheDecidingThreadIsHeld(waiter, timers.get(0), Rejection.Reason.WAIT_TIMEOUT);
        assertThat(global.queuedCount()).isZero();
    }

    @Test
    @DisplayName("queued for a fair global slot: a cancel after the drain refused the call fails, and is counted")
    void fairShareQueue() throws Exception {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(2).build();
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants")
                .globalLimit(global).fairShares().onRejected(holdDecidingThread)
                .defaultConfig(Bulkhead.builder().maxConcurrency(10).config()).build();
        tenants.callAsync("a", () -> NEVER);
        CompletableFuture<String> waiter = tenants.callAsync("b", () -> CompletableFuture.completedFuture("ran"));
        assertThat(tenants.fairQueuedCount()).isOne();

        List<DrainResult> drained = new CopyOnWriteArrayList<>();
        cancelWhileTheDecidingThreadIsHeld(waiter, () -> drained.add(tenants.drain(Duration.ZERO)),
                Rejection.Reason.CLOSED);
        assertThat(drained).singleElement().extracting(DrainResult::refusedWaiters).isEqualTo(1);
    }

    @Test
    @DisplayName("a cancel while the per-key call still waits wins in every queue")
    void aCancelWhileWaitingStillCancels() {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(2).build();
        PartitionedBulkhead<String> fair = PartitionedBulkhead.<String>builder().name("fair").globalLimit(global)
                .fairShares().defaultConfig(Bulkhead.builder().maxConcurrency(10).config()).build();
        fair.callAsync("a", () -> NEVER);
        CompletableFuture<String> waiter = fair.callAsync("b", () -> CompletableFuture.completedFuture("ran"));
        assertThat(waiter.cancel(false)).isTrue();
        assertThat(waiter).isCancelled();
        assertThat(fair.fairQueuedCount()).isZero();
    }
}
