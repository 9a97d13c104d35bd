package dev.bulwark;

import static dev.bulwark.BulkheadRaceTest.assertQuiet;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * After a million waiters that were cancelled or timed out, nothing holds on to them: not the bulkhead's queue,
 * not the shared timer (cancelled timeouts are removed), not a long-lived cancellation signal they were registered
 * on (their registrations are closed). Each waiter's future is reachable from its queue node, its timer task and its
 * signal registration, so once the test drops its own references, a weak reference to every future must clear.
 * Guards against Failsafe #393 / #365 (a waiter that gave up keeps a permit or a node forever).
 */
@Tag("slow")
class BulkheadLeakTest {

    private static final int BATCHES = 10;
    /** Waiters per batch cancelled through their future, and as many through a signal. */
    private static final int CANCELLED = 10_000;
    /** Waiters per batch timed out (half by acquireAsync on a long-lived signal, half by callAsync). */
    private static final int TIMED_OUT = 80_000;
    private static final int PER_BATCH = 2 * CANCELLED + TIMED_OUT;

    @Test
    @DisplayName("leak (Failsafe #393, #365): a million cancelled or timed-out waiters leave nothing behind")
    void aMillionWaitersThatGaveUpLeaveNothingReachable() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("leak").maxConcurrency(1).maxQueue(PER_BATCH).build();
        Permit holder = bulkhead.acquire();
        // Lives through the whole test and is never cancelled: the timed-out half is registered on it.
        CancellationSignal longLived = CancellationSignal.create();
        ReferenceQueue<Object> cleared = new ReferenceQueue<>();
        List<WeakReference<Object>> references = new ArrayList<>(BATCHES * PER_BATCH);
        long heapBefore = usedHeapAfterGc();

        for (int batch = 0; batch < BATCHES; batch++) {
            List<CompletableFuture<?>> futures = new ArrayList<>(PER_BATCH);
            // 1. Cancelled through their own future. Their hour-long timeouts are cancelled too, and must leave the
            // shared timer's queue at once rather than hold the waiter for an hour.
            bulkhead.changeMaxWait(Duration.ofHours(1));
            for (int i = 0; i < CANCELLED; i++) {
                futures.add(bulkhead.acquireAsync(longLived));
            }
            // 2. Cancelled through a signal shared by the batch.
            CancellationSignal batchSignal = CancellationSignal.create();
            for (int i = 0; i < CANCELLED; i++) {
                int index = i;
                futures.add(bulkhead.callAsync(() -> CompletableFuture.completedFuture(index), batchSignal));
            }
            assertThat(bulkhead.queuedCount()).isEqualTo(2 * CANCELLED);
            for (int i = 0; i < CANCELLED; i++) {
                futures.get(i).cancel(false);
            }
            batchSignal.cancel();
            assertThat(bulkhead.queuedCount()).isZero();
            // 3. and 4. Timed out by the shared timer (cheaper than cancellations, which each carry a
            // CancellationException with a stack trace, so most of the million are these), half of them registered on
            // the long-lived signal.
            bulkhead.changeMaxWait(Duration.ofMillis(20));
            for (int i = 0; i < TIMED_OUT / 2; i++) {
                futures.add(bulkhead.acquireAsync(longLived));
                int index = i;
                futures.add(bulkhead.callAsync(() -> CompletableFuture.completedFuture(index)));
            }
            CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).handle((v, e) -> null)
                    .get(2, TimeUnit.MINUTES);
            assertThat(futures).allMatch(CompletableFuture::isCompletedExceptionally);
            for (CompletableFuture<?> future : futures) {
                references.add(new WeakReference<>(future, cleared));
            }
            assertThat(bulkhead.queuedCount()).isZero();
        }

        assertThat(references).hasSize(1_000_000);
        int gone = 0;
        for (int attempt = 0; attempt < 30 && gone < references.size(); attempt++) {
            System.gc();
            while (cleared.remove(100) != null) {
                gone++;
            }
        }
        long heapAfter = usedHeapAfterGc();
        System.out.printf("leak: %d of %d waiters collected; heap used after GC %d MiB before, %d MiB after"
                + " (the second figure includes the test's million WeakReference objects)%n", gone,
                references.size(), heapBefore >> 20, heapAfter >> 20);

        assertThat(gone).as("waiters still reachable after giving up").isEqualTo(references.size());
        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        assertThat(longLived.isCancelled()).isFalse();
        holder.close();
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("leak (issue 16): evicted, too-heavy and closed-out weighted waiters leave nothing behind")
    void waitersPushedOutByPriorityLimitOrCloseLeaveNothingReachable() throws Exception {
        int perKind = 20_000;
        Bulkhead bulkhead = Bulkhead.builder().name("leak-weighted").maxConcurrency(3).maxQueue(perKind)
                .maxWait(Duration.ofHours(1)).build();
        Permit holder = bulkhead.acquire(3);
        CancellationSignal longLived = CancellationSignal.create();
        ReferenceQueue<Object> cleared = new ReferenceQueue<>();
        List<WeakReference<Object>> references = new ArrayList<>();
        List<CompletableFuture<?>> futures = new ArrayList<>();
        // 1. SHEDDABLE waiters, each evicted by a HIGH newcomer once the queue is full.
        for (int i = 0; i < perKind; i++) {
            futures.add(bulkhead.acquireAsyncWith(CallOptions.builder().priority(Priority.SHEDDABLE).signal(longLived)
                    .build()));
        }
        List<CompletableFuture<Permit>> evictors = new ArrayList<>();
        for (int i = 0; i < perKind; i++) {
            evictors.add(bulkhead.acquireAsyncWith(CallOptions.builder().weight(3).priority(Priority.HIGH)
                    .signal(longLived).build()));
        }
        // 2. The weight-3 evictors, refused when the limit drops to 2.
        bulkhead.changeMaxConcurrency(2);
        futures.addAll(evictors);
        evictors.clear();
        // 3. Weight-2 waiters refused by the close.
        for (int i = 0; i < perKind; i++) {
            futures.add(bulkhead.acquireAsyncWith(CallOptions.builder().weight(2).signal(longLived).build()));
        }
        assertThat(bulkhead.drain(Duration.ZERO).refusedWaiters()).isEqualTo(perKind);
        assertThat(futures).hasSize(3 * perKind).allMatch(CompletableFuture::isCompletedExceptionally);
        for (CompletableFuture<?> future : futures) {
            references.add(new WeakReference<>(future, cleared));
        }
        futures.clear();
        int gone = 0;
        for (int attempt = 0; attempt < 30 && gone < references.size(); attempt++) {
            System.gc();
            while (cleared.remove(100) != null) {
                gone++;
            }
        }
        assertThat(gone).as("pushed-out waiters still reachable").isEqualTo(references.size());
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    private static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        System.gc();
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
