package dev.bulwark.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: an async waiter with a maximum wait on a timing wheel is its own wheel node. Its fire, its grant and its
 * caller's cancel each decide it once; a decided waiter's node leaves the wheel within a tick, and the maximum wait
 * never ends early. Driven by hand on one clock shared by the wheel and the bulkhead, then raced on a running wheel.
 */
class AsyncWaiterTimerTest {

    private static final long TICK = 1_000_000;

    private final AtomicLong now = new AtomicLong(3_000_000_123L);
    private final TimerWheel wheel = new TimerWheel(TICK, 16, now::get);
    private final Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(8)
            .maxWait(Duration.ofMillis(5)).scheduler(wheel).ticker(now::get).build();

    private void advance(long nanos) {
        wheel.advanceTo(now.addAndGet(nanos));
    }

    @Test
    void theMaximumWaitEndsTheWaitNeverEarlyAndTheNodeLeavesTheWheel() {
        Permit held = bulkhead.acquire();
        long queuedAt = now.get();
        CompletableFuture<String> queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture("ran"));
        advance(TICK / 2);
        assertThat(wheel.filedCount()).as("the waiter itself is filed").isOne();
        while (!queued.isDone()) {
            assertThat(now.get() - queuedAt).as("not ended before its maximum wait").isLessThan(5 * TICK + 2 * TICK);
            advance(TICK / 4);
        }
        assertThat(now.get() - queuedAt).isGreaterThanOrEqualTo(5 * TICK);
        assertThat(queued).failsWithin(Duration.ZERO).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOfSatisfying(BulkheadRejectedException.class,
                        refused -> assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT));
        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(wheel.filedCount()).isZero();
        held.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aGrantBeforeTheMaximumWaitCancelsTheNodeWhichLeavesTheWheelOnTheNextTick() {
        Permit held = bulkhead.acquire();
        CompletableFuture<String> queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture("ran"));
        advance(TICK);
        assertThat(wheel.filedCount()).isOne();
        held.close();
        assertThat(queued).isCompletedWithValue("ran");
        advance(TICK);
        assertThat(wheel.filedCount()).isZero();
        advance(20 * TICK);
        assertThat(queued).isCompletedWithValue("ran");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aCallerThatGivesUpCancelsTheNodeBeforeOrAfterItIsFiled() {
        Permit held = bulkhead.acquire();
        CompletableFuture<String> beforeFiling = bulkhead.callAsync(() -> CompletableFuture.completedFuture("x"));
        beforeFiling.cancel(false);
        CompletableFuture<String> afterFiling = bulkhead.callAsync(() -> CompletableFuture.completedFuture("y"));
        advance(TICK);
        assertThat(wheel.filedCount()).isOne();
        afterFiling.cancel(false);
        advance(TICK);
        assertThat(wheel.filedCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
        advance(20 * TICK);
        assertThat(beforeFiling).isCancelled();
        assertThat(afterFiling).isCancelled();
        held.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    /** A hundred thousand hand-offs with an hour's maximum wait on a running wheel leave nothing filed. */
    @Test
    void manyGrantedWaitersLeaveTheRunningWheelEmpty() {
        TimerWheel running = new TimerWheel(TICK, 512, System::nanoTime).start("async-waiter-timer-test");
        try {
            Bulkhead queueing = Bulkhead.builder().maxConcurrency(1).maxQueue(3).maxWait(Duration.ofHours(1))
                    .scheduler(running).build();
            for (int cycle = 0; cycle < 25_000; cycle++) {
                CompletableFuture<Object> gate = new CompletableFuture<>();
                queueing.callAsync(() -> gate);
                CompletableFuture<Object> last = null;
                for (int i = 0; i < 3; i++) {
                    last = queueing.callAsync(() -> CompletableFuture.completedFuture("ok"));
                }
                gate.complete("done");
                assertThat(last).isCompletedWithValue("ok");
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> running.filedCount() == 0);
        } finally {
            running.shutdown();
        }
    }

    /**
     * On a running wheel with maximum waits around the tick, a release races each waiter's fire: every call ends
     * exactly one way (ran, or timed out), and the bulkhead's accounting comes back to nothing in use.
     */
    @Test
    void aGrantRacesTheFireAndEachCallEndsExactlyOneWay() {
        TimerWheel running = new TimerWheel(TICK / 4, 64, System::nanoTime).start("async-waiter-race-test");
        try {
            Bulkhead racing = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofNanos(700_000))
                    .scheduler(running).build();
            int ran = 0;
            int timedOut = 0;
            for (int i = 0; i < 5_000; i++) {
                Permit held = racing.acquire();
                CompletableFuture<String> queued = racing.callAsync(() -> CompletableFuture.completedFuture("ran"));
                // 0 to 1.5 ms: the fire comes 700 us plus up to two ticks (500 us) after the wait began, so the
                // longest spins always lose to it and the shortest always win, on a quiet machine as on a loaded one.
                long spinUntil = System.nanoTime() + (i % 16) * 100_000L;
                while (System.nanoTime() < spinUntil) {
                    Thread.onSpinWait();
                }
                held.close();
                try {
                    assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
                    ran++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(BulkheadRejectedException.class);
                    timedOut++;
                } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
                    throw new AssertionError(e);
                }
                assertThat(racing.queuedCount()).isZero();
            }
            assertThat(ran + timedOut).isEqualTo(5_000);
            assertThat(racing.executingCount()).isZero();
            assertThat(ran).isPositive();
            assertThat(timedOut).isPositive();
            await().atMost(Duration.ofSeconds(10)).until(() -> running.filedCount() == 0);
        } finally {
            running.shutdown();
        }
    }
}
