package dev.bulwark;

import static dev.bulwark.testing.Threads.startQueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The permit family: acquire, tryAcquire, acquireAsync, and idempotent close. */
class BulkheadPermitTest {

    @Test
    void closingAPermitTwiceFreesOneSlot() {
        Bulkhead bulkhead = Bulkhead.of(2);
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();
        assertThat(bulkhead.executingCount()).isEqualTo(2);

        first.close();
        first.close();

        assertThat(first.isReleased()).isTrue();
        assertThat(second.isReleased()).isFalse();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        second.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void closingAPermitFromManyThreadsAtOnceFreesOneSlot() throws Exception {
        for (int round = 0; round < 200; round++) {
            Bulkhead bulkhead = Bulkhead.of(2);
            Permit other = bulkhead.acquire();
            Permit raced = bulkhead.acquire();
            CyclicBarrier barrier = new CyclicBarrier(4);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Thread thread = new Thread(() -> {
                    try {
                        barrier.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    raced.close();
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(bulkhead.executingCount()).isEqualTo(1);
            other.close();
            assertThat(bulkhead.executingCount()).isZero();
        }
    }

    @Test
    void tryAcquireNeverWaitsNorCallsTheHandler() {
        List<Rejection> handled = new ArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(5).onRejected(handled::add).build();

        Optional<Permit> first = bulkhead.tryAcquire();
        Optional<Permit> second = bulkhead.tryAcquire();

        assertThat(first).isPresent();
        assertThat(second).isEmpty();
        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(handled).isEmpty();
        first.get().close();
        assertThat(bulkhead.tryAcquire()).isPresent();
    }

    @Test
    void tryAcquireDoesNotBargePastAWaiter() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        CountDownLatch release = new CountDownLatch(1);
        FutureTask<Integer> waiter = startQueued(bulkhead, "waiter", () -> bulkhead.call(() -> {
            release.await();
            return 1;
        }));

        holder.close();
        assertThat(bulkhead.tryAcquire()).isEmpty();
        release.countDown();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    }

    @Test
    void acquireWaitsLikeCallAndHonoursRejection() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        FutureTask<Permit> waiter = startQueued(bulkhead, "waiter", bulkhead::acquire);

        assertThatThrownBy(bulkhead::acquire).isInstanceOf(BulkheadRejectedException.class);
        holder.close();
        Permit granted = waiter.get(10, TimeUnit.SECONDS);
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        granted.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void acquireAsyncCompletesOnceASlotIsGranted() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        CompletableFuture<Permit> first = bulkhead.acquireAsync();
        CompletableFuture<Permit> second = bulkhead.acquireAsync();
        CompletableFuture<Permit> third = bulkhead.acquireAsync();

        assertThat(first).isCompleted();
        assertThat(second).isNotDone();
        assertThat(third.handle((p, e) -> e).join()).isInstanceOf(BulkheadRejectedException.class);

        first.join().close();
        assertThat(second).isCompleted();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        second.join().close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void acquireAsyncCancelledWhileQueuedLeavesTheQueue() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();

        queued.cancel(false);

        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aPermitGrantedToAFutureCancelledAtThatInstantIsReleased() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();
        // The dependent runs when the permit arrives and cancels nothing; the caller "completing" the future
        // itself before the grant is what must release the slot.
        queued.complete(null);

        holder.close();

        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void acquireAsyncTimesOutOnTheScheduler() {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofMillis(10))
                .ticker(ticker).scheduler(scheduler).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();

        scheduler.advance(Duration.ofMillis(10));

        assertThat(queued.handle((p, e) -> e).join()).isInstanceOf(BulkheadRejectedException.class);
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void acquireAsyncWithACancelledSignal() {
        Bulkhead bulkhead = Bulkhead.of(1);
        CancellationSignal signal = CancellationSignal.create();
        signal.cancel();

        assertThat(bulkhead.acquireAsync(signal).handle((p, e) -> e).join())
                .isInstanceOf(CancellationException.class);
        assertThat(bulkhead.executingCount()).isZero();
    }
}
