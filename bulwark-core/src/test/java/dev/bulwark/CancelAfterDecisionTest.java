package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Forced interleavings of a caller's {@code cancel} of a queued future with a refusal or a timeout that was decided
 * first but not yet delivered: the deciding thread is held inside the overflow handler, which runs after the
 * decision and before the future fails. The cancel must not win there (it returns {@code false} and the future
 * fails with the decided refusal), so that the close's count and every caller's outcome agree. Both tests fail when
 * the future is a plain {@code CompletableFuture}, whose {@code cancel} wins.
 */
class CancelAfterDecisionTest {

    private final CountDownLatch inHandler = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<Runnable> timers = new CopyOnWriteArrayList<>();

    private Bulkhead bulkhead() {
        return Bulkhead.builder().name("decided").maxConcurrency(1).maxQueue(2).maxWait(Duration.ofSeconds(1))
                .ticker(() -> 0L).scheduler((task, delay, unit) -> {
                    timers.add(task);
                    return () -> { };
                }).onRejected(rejection -> {
                    if (rejection.reason() != Rejection.Reason.QUEUE_FULL) {
                        inHandler.countDown();
                        await().atMost(Duration.ofSeconds(30)).until(() -> release.getCount() == 0);
                    }
                }).build();
    }

    private static Rejection.Reason reason(CompletableFuture<Permit> future) {
        Throwable failure = future.handle((value, thrown) -> thrown).join();
        return failure instanceof BulkheadRejectedException
                ? ((BulkheadRejectedException) failure).rejection().reason() : null;
    }

    @Test
    @DisplayName("close vs cancel: a cancel after the close refused the waiter fails, and the close counts it")
    void aCancelAfterTheCloseDecidedTheRefusalDoesNotWin() throws Exception {
        Bulkhead bulkhead = bulkhead();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        AtomicReference<DrainResult> drain = new AtomicReference<>();
        Thread closer = new Thread(() -> drain.set(bulkhead.drain(Duration.ZERO)), "closer");
        closer.start();
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();

        assertThat(waiter.cancel(false)).as("the close decided first").isFalse();
        release.countDown();
        closer.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(reason(waiter)).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(waiter.isCancelled()).isFalse();
        assertThat(drain.get().refusedWaiters()).isOne();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    @DisplayName("timeout vs cancel: a cancel after the timer decided the timeout fails, and the timeout stands")
    void aCancelAfterTheTimerDecidedTheTimeoutDoesNotWin() throws Exception {
        Bulkhead bulkhead = bulkhead();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        Thread timer = new Thread(timers.get(0), "timer");
        timer.start();
        assertThat(inHandler.await(30, TimeUnit.SECONDS)).isTrue();

        assertThat(waiter.cancel(false)).as("the timer decided first").isFalse();
        release.countDown();
        timer.join(TimeUnit.SECONDS.toMillis(30));

        assertThat(reason(waiter)).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    @DisplayName("a cancel while the waiter still waits wins: the future is cancelled and leaves the queue")
    void aCancelWhileWaitingStillCancels() {
        Bulkhead bulkhead = bulkhead();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        assertThat(waiter.cancel(false)).isTrue();
        assertThat(waiter).isCancelled();
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }
}
