package dev.bulwark;

import static dev.bulwark.BulkheadRaceTest.assertQuiet;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.Rounds;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Admission under contention and draining long queues. Threads are released together by a barrier, round after
 * round, and the exact number that got in is checked: a check-then-act admission would let more in on some round.
 */
class BulkheadContentionTest {

    private static final int THREADS = 6;
    private static final int ROUNDS = Rounds.of(300);

    @Test
    @DisplayName("check-then-act (Sentinel #628): racing tryAcquire never admits more than the free slots")
    void racingTryAcquireAdmitsExactlyTheFreeSlots() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(3).maxQueue(4).build();
        ConcurrentLinkedQueue<Permit> admitted = new ConcurrentLinkedQueue<>();
        runRounds(() -> bulkhead.tryAcquire().ifPresent(admitted::add), () -> {
            assertThat(admitted).hasSize(3);
            assertThat(bulkhead.executingCount()).isEqualTo(3);
            admitted.forEach(Permit::close);
            admitted.clear();
            assertQuiet(bulkhead, 3);
        });
    }

    @Test
    @DisplayName("queue-limit check-then-act (Sentinel #628): racing joins never queue more than maxQueue")
    void racingAsyncJoinsQueueExactlyMaxQueue() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(4).build();
        AtomicReference<Permit> holder = new AtomicReference<>(bulkhead.acquire());
        ConcurrentLinkedQueue<CompletableFuture<Permit>> accepted = new ConcurrentLinkedQueue<>();
        AtomicInteger refused = new AtomicInteger();
        runRounds(() -> {
            for (int i = 0; i < 2; i++) {
                CompletableFuture<Permit> future = bulkhead.acquireAsync();
                if (future.isCompletedExceptionally()) {
                    refused.incrementAndGet();
                } else {
                    accepted.add(future);
                }
            }
        }, () -> {
            assertThat(accepted).hasSize(4);
            assertThat(refused).hasValue(THREADS * 2 - 4);
            assertThat(bulkhead.queuedCount()).isEqualTo(4);
            // Drain: each close hands the slot to exactly one next waiter. (The order the threads recorded their
            // futures in is not the order they joined the queue; FifoProperties checks the order.)
            holder.get().close();
            List<CompletableFuture<Permit>> left = new ArrayList<>(accepted);
            while (!left.isEmpty()) {
                List<CompletableFuture<Permit>> granted = left.stream().filter(CompletableFuture::isDone).toList();
                assertThat(granted).as("waiters holding the one slot").hasSize(1);
                left.remove(granted.get(0));
                granted.get(0).join().close();
            }
            accepted.clear();
            refused.set(0);
            assertQuiet(bulkhead, 1);
            holder.set(bulkhead.acquire());
        });
        holder.get().close();
    }

    @Test
    @DisplayName("counter overflow (SmallRye #1099): maxQueue = Integer.MAX_VALUE under contention")
    void anUnboundedQueueUnderContentionCountsExactly() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(2).maxQueue(Integer.MAX_VALUE).build();
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();
        ConcurrentLinkedQueue<CompletableFuture<Permit>> queued = new ConcurrentLinkedQueue<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                await(start);
                for (int i = 0; i < 5_000; i++) {
                    queued.add(bulkhead.acquireAsync());
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(bulkhead.queuedCount()).isEqualTo(THREADS * 5_000);
        assertThat(queued).noneMatch(CompletableFuture::isDone);
        queued.forEach(future -> future.thenAccept(Permit::close));
        first.close();
        second.close();
        assertThat(queued).allMatch(future -> future.isDone() && !future.isCompletedExceptionally());
        assertQuiet(bulkhead, 2);
    }

    @Test
    @DisplayName("stack overflow while draining (SmallRye): permits closed by their own completion callbacks")
    void drainingPermitWaitersClosedByTheirCallbacksOnASmallStackStaysShallow() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(50_000).build();
        Permit holder = bulkhead.acquire();
        List<CompletableFuture<Void>> closed = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            closed.add(bulkhead.acquireAsync().thenAccept(Permit::close));
        }

        Throwable failure = onSmallStack(holder::close);

        assertThat(failure).isNull();
        assertThat(closed).allMatch(future -> future.isDone() && !future.isCompletedExceptionally());
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("stack overflow while draining (SmallRye): immediately-completing calls, small stack, "
            + "via a limit raise")
    void drainingImmediatelyCompletingCallsOnASmallStackStaysShallow() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(100_000).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            int index = i;
            results.add(bulkhead.callAsync(() -> {
                if (next.getAndIncrement() != index) {
                    outOfOrder.incrementAndGet();
                }
                return CompletableFuture.completedFuture(index);
            }));
        }

        // The first half drains from a release, the rest from raising the limit, both on a small stack.
        assertThat(onSmallStack(holder::close)).isNull();
        Permit second = bulkhead.acquire();
        for (int i = 0; i < 50_000; i++) {
            int index = i;
            results.add(bulkhead.callAsync(() -> CompletableFuture.completedFuture(index)));
        }
        assertThat(bulkhead.queuedCount()).isEqualTo(50_000);
        assertThat(onSmallStack(() -> bulkhead.changeMaxConcurrency(2))).isNull();
        second.close();
        bulkhead.changeMaxConcurrency(1);

        assertThat(outOfOrder).hasValue(0);
        assertThat(results).allMatch(future -> future.isDone() && !future.isCompletedExceptionally());
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("lost wakeup (SmallRye): a release racing a newcomer joining the queue never strands it")
    void aReleaseRacingAJoinNeverStrandsTheNewcomer() throws Exception {
        for (int round = 0; round < Rounds.of(2_000); round++) {
            Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
            Permit holder = bulkhead.acquire();
            CyclicBarrier start = new CyclicBarrier(2);
            AtomicReference<CompletableFuture<Permit>> joined = new AtomicReference<>();
            Thread joiner = new Thread(() -> {
                await(start);
                joined.set(bulkhead.acquireAsync());
            });
            joiner.start();
            await(start);
            holder.close();
            joiner.join();

            CompletableFuture<Permit> future = joined.get();
            assertThat(future).as("round %d: the newcomer got the slot freed while it joined", round).isCompleted();
            future.join().close();
            assertQuiet(bulkhead, 1);
        }
    }

    private static void runRounds(Runnable eachThread, Runnable afterRound) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        CyclicBarrier end = new CyclicBarrier(THREADS, afterRound);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int round = 0; round < ROUNDS; round++) {
                        start.await();
                        eachThread.run();
                        end.await();
                    }
                } catch (Throwable failure) {
                    failures.add(failure);
                    start.reset();
                    end.reset();
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.MINUTES.toMillis(2));
        }
        assertThat(failures).isEmpty();
    }

    /** Runs {@code action} on a thread with a 256 KiB stack; returns what it threw, or {@code null}. */
    private static Throwable onSmallStack(Runnable action) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(null, () -> {
            try {
                action.run();
            } catch (Throwable thrown) {
                failure.set(thrown);
            }
        }, "small-stack", 256 * 1024);
        thread.start();
        thread.join();
        return failure.get();
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
