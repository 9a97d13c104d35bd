package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.bulwark.testing.GatedKey;
import dev.bulwark.testing.Threads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 item 4 for {@link PartitionedBulkhead}: {@code drain}, {@code close} and {@code isClosed} (docs/per-key.md,
 * "Closing and draining").
 */
class PartitionedBulkheadDrainTest {

    private static PartitionedBulkhead<String> partitioned(List<Rejection> told) {
        return PartitionedBulkhead.<String>builder().name("tenants").onRejected(told::add)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).maxQueue(10).config()).build();
    }

    private static Rejection.Reason reasonOf(Throwable failure) {
        Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
        assertThat(cause).isInstanceOf(BulkheadRejectedException.class);
        return ((BulkheadRejectedException) cause).rejection().reason();
    }

    @Test
    void afterACloseNewCallsAndNewKeysAreRefusedWithClosedAndTheHandlerIsTold() {
        List<Rejection> told = Collections.synchronizedList(new ArrayList<>());
        PartitionedBulkhead<String> partitioned = partitioned(told);
        partitioned.call("a", () -> "a");
        assertThat(partitioned.isClosed()).isFalse();

        partitioned.close();

        assertThat(partitioned.isClosed()).isTrue();
        assertThat(reasonOf(catchThrowable(() -> partitioned.call("a", () -> "a")))).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(reasonOf(catchThrowable(() -> partitioned.call("new", () -> "new"))))
                .isEqualTo(Rejection.Reason.CLOSED);
        assertThat(reasonOf(catchThrowable(() -> partitioned.callAsync("b",
                () -> CompletableFuture.completedFuture("b")).join()))).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(partitioned.partitions()).containsOnlyKeys("a");
        assertThat(partitioned.partitionCount()).isEqualTo(1);
        assertThat(told).hasSize(3).allSatisfy(rejection -> {
            assertThat(rejection.reason()).isEqualTo(Rejection.Reason.CLOSED);
            assertThat(rejection.bulkheadName()).isEqualTo("tenants");
        });
    }

    @Test
    void drainRefusesQueuedCallsWhichNeverRunAndWaitsForTheRunningOnes() throws Exception {
        PartitionedBulkhead<String> partitioned = partitioned(new ArrayList<>());
        CompletableFuture<String> running = new CompletableFuture<>();
        CompletableFuture<String> first = partitioned.callAsync("a", () -> running);
        AtomicBoolean queuedRan = new AtomicBoolean();
        CompletableFuture<String> queued = partitioned.callAsync("a", () -> {
            queuedRan.set(true);
            return CompletableFuture.completedFuture("queued");
        });
        FutureTask<String> blocked = Threads.startQueued(partitioned.partition("a").orElseThrow(), "queued-sync",
                () -> partitioned.call("a", () -> {
                    queuedRan.set(true);
                    return "sync";
                }));

        DrainResult closing = partitioned.drain(Duration.ZERO);
        assertThat(closing.bulkheadName()).isEqualTo("tenants");
        assertThat(closing.refusedWaiters()).isEqualTo(2);
        assertThat(closing.stillExecuting()).isEqualTo(1);
        assertThat(closing.isComplete()).isFalse();

        assertThat(reasonOf(catchThrowable(queued::join))).as("refused at the close, not when a slot frees")
                .isEqualTo(Rejection.Reason.CLOSED);
        assertThat(reasonOf(catchThrowable(blocked::get).getCause())).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(first).isNotDone();
        running.complete("done");
        assertThat(first).isCompletedWithValue("done");
        assertThat(queuedRan).as("a queued call never runs after the close").isFalse();

        DrainResult again = partitioned.drain(Duration.ofSeconds(10));
        assertThat(again.refusedWaiters()).as("idempotent: nothing more to refuse").isZero();
        assertThat(again.isComplete()).isTrue();
        assertThat(partitioned.partition("a").orElseThrow().executingCount()).isZero();
    }

    @Test
    void waitedIsOnlyTheWaitForRunningCallsSoADrainThatDoesNotWaitReportsZero() {
        // The closing itself takes time: refusing the queued call runs its partition's overflow handler, which
        // lets at least a millisecond of real time pass. That is closing, not waiting for running calls.
        BulkheadConfig slowToRefuse = Bulkhead.builder().maxConcurrency(1).maxQueue(10)
                .onRejected(rejection -> spinFor(Duration.ofMillis(1))).config();
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().defaultConfig(slowToRefuse)
                .build();
        CompletableFuture<String> running = new CompletableFuture<>();
        partitioned.callAsync("a", () -> running);
        CompletableFuture<String> queued = partitioned.callAsync("a", () -> CompletableFuture.completedFuture("q"));

        DrainResult closing = partitioned.drain(Duration.ZERO);

        assertThat(closing.refusedWaiters()).isEqualTo(1);
        assertThat(closing.stillExecuting()).isEqualTo(1);
        assertThat(closing.waited()).as("Duration.ZERO does not wait").isEqualTo(Duration.ZERO);
        assertThat(reasonOf(catchThrowable(queued::join))).isEqualTo(Rejection.Reason.CLOSED);
        running.complete("done");
        assertThat(partitioned.drain(Duration.ofMinutes(5)).waited()).as("nothing left to wait for")
                .isEqualTo(Duration.ZERO);
    }

    private static void spinFor(Duration duration) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < duration.toNanos()) {
            Thread.onSpinWait();
        }
    }

    @Test
    void drainWaitsUpToItsDeadlineAndReturnsWhenTheLastCallReleases() throws Exception {
        PartitionedBulkhead<String> partitioned = partitioned(new ArrayList<>());
        CompletableFuture<String> running = new CompletableFuture<>();
        partitioned.callAsync("a", () -> running);
        FutureTask<DrainResult> draining = Threads.start("drainer", () -> partitioned.drain(Duration.ofMinutes(5)));
        Threads.awaitParked(PartitionedBulkheadFairShareTest.threadNamed("drainer"));
        assertThat(draining.isDone()).isFalse();

        running.complete("done");

        DrainResult result = draining.get();
        assertThat(result.isComplete()).isTrue();
        assertThat(result.waited()).isLessThan(Duration.ofMinutes(5));
    }

    @Test
    void anInterruptedDrainReturnsEarlyWithTheFlagSet() throws Exception {
        PartitionedBulkhead<String> partitioned = partitioned(new ArrayList<>());
        CompletableFuture<String> running = new CompletableFuture<>();
        partitioned.callAsync("a", () -> running);
        AtomicBoolean flagKept = new AtomicBoolean();
        FutureTask<DrainResult> draining = Threads.start("interrupted-drainer", () -> {
            DrainResult result = partitioned.drain(Duration.ofMinutes(5));
            flagKept.set(Thread.currentThread().isInterrupted());
            return result;
        });
        Thread drainer = PartitionedBulkheadFairShareTest.threadNamed("interrupted-drainer");
        Threads.awaitParked(drainer);
        drainer.interrupt();

        assertThat(draining.get().stillExecuting()).isEqualTo(1);
        assertThat(flagKept).isTrue();
        running.complete("done");
    }

    @Test
    void drainRefusesFairShareWaitersAtOnceAndLeavesTheGlobalLimitAlone() {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(10).build();
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().globalLimit(global)
                .fairShares().defaultConfig(Bulkhead.builder().maxConcurrency(5).maxQueue(10).config()).build();
        CompletableFuture<String> running = new CompletableFuture<>();
        partitioned.callAsync("a", () -> running);
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<String> waiting = partitioned.callAsync("b", () -> {
            ran.incrementAndGet();
            return CompletableFuture.completedFuture("b");
        });
        assertThat(partitioned.fairQueuedCount()).isEqualTo(1);

        DrainResult result = partitioned.drain(Duration.ZERO);

        assertThat(result.refusedWaiters()).isEqualTo(1);
        assertThat(reasonOf(catchThrowable(waiting::join))).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(partitioned.partition("b").orElseThrow().executingCount()).as("its key's slot is back").isZero();
        running.complete("a");
        assertThat(ran).hasValue(0);
        assertThat(global.executingCount()).isZero();
        assertThat(global.call(() -> "still open")).isEqualTo("still open");
    }

    /**
     * A call for a new key is stopped at each of its key's {@code hashCode} calls in turn (every map operation of
     * its creation) while another thread closes the bulkhead: whatever the point, the call is refused with
     * {@code CLOSED} without running (or ran to its end before the close), and no place is taken after the close.
     */
    @Test
    void aCloseRacingACreationAtEachPointLeavesNoPartitionCreatedAfterIt() throws Exception {
        for (int skip = 0; ; skip++) {
            PartitionedBulkhead<GatedKey> partitioned = PartitionedBulkhead.<GatedKey>builder().name("race").build();
            GatedKey key = new GatedKey("new");
            FutureTask<String> calling = new FutureTask<>(() -> partitioned.call(key, () -> "ran"));
            Thread gated = new Thread(calling, "creating");
            gated.setDaemon(true);
            key.closeOn(gated, skip);
            gated.start();
            await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(30))
                    .until(() -> key.arrived() || calling.isDone());
            if (!key.arrived()) {
                assertThat(calling.get()).isEqualTo("ran");
                assertThat(skip).as("hashCode calls tried").isPositive();
                return;
            }
            partitioned.close();
            int partitionsAtClose = partitioned.partitionCount();
            key.open();
            Throwable failure = catchThrowable(() -> calling.get(30, TimeUnit.SECONDS));
            assertThat(failure).as("gate point %d", skip).isNotNull();
            assertThat(reasonOf(failure.getCause())).isEqualTo(Rejection.Reason.CLOSED);
            // A place reserved before the close may still be filled; no place is taken after it.
            assertThat(partitioned.partitionCount()).as("gate point %d", skip).isEqualTo(partitionsAtClose)
                    .isEqualTo(partitioned.partitions().size());
        }
    }

    @Test
    void aNegativeOrMissingDeadlineIsRefusedNamingIt() {
        PartitionedBulkhead<String> partitioned = partitioned(new ArrayList<>());
        assertThatThrownBy(() -> partitioned.drain(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deadline");
        assertThatThrownBy(() -> partitioned.drain(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("deadline");
        assertThat(partitioned.isClosed()).isFalse();
    }

    @Test
    void drainRacingGrantsAndNewCallsNeverLetAnOperationStartAfterItReturns() throws Exception {
        for (int round = 0; round < 200; round++) {
            Bulkhead global = Bulkhead.builder().maxConcurrency(2).maxQueue(100).build();
            PartitionedBulkhead<Integer> partitioned = PartitionedBulkhead.<Integer>builder().globalLimit(global)
                    .fairShares().defaultConfig(Bulkhead.builder().maxConcurrency(2).maxQueue(100).config())
                    .build();
            AtomicBoolean drained = new AtomicBoolean();
            AtomicInteger lateStarts = new AtomicInteger();
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                int key = i % 3;
                calls.add(partitioned.callAsync(key, () -> {
                    if (drained.get()) {
                        lateStarts.incrementAndGet();
                    }
                    return CompletableFuture.supplyAsync(() -> key);
                }));
            }
            DrainResult result = partitioned.drain(Duration.ofSeconds(30));
            drained.set(true);
            for (CompletableFuture<Integer> call : calls) {
                Throwable failure = catchThrowable(call::join);
                if (failure != null) {
                    assertThat(reasonOf(failure)).isEqualTo(Rejection.Reason.CLOSED);
                }
            }
            assertThat(lateStarts).hasValue(0);
            assertThat(result.isComplete()).isTrue();
            assertThat(global.executingCount()).isZero();
            assertThat(partitioned.fairQueuedCount()).isZero();
        }
    }

    /** Starts a call of {@code key} on a new thread that stops in the key's {@code hashCode} call {@code skip + 1}. */
    private static Thread callStoppedInHashCode(PartitionedBulkhead<GatedKey> partitioned, GatedKey key, int skip,
                                                 AtomicReference<Throwable> outcome) {
        Thread caller = new Thread(() -> outcome.set(catchThrowable(() -> partitioned.call(key, () -> "ran"))));
        key.closeOn(caller, skip);
        caller.start();
        await().atMost(Duration.ofSeconds(10)).until(key::arrived);
        return caller;
    }

    @Test
    void aPartitionCreatedWhileTheBulkheadClosesIsClosedToo() throws Exception {
        PartitionedBulkhead<GatedKey> partitioned = PartitionedBulkhead.<GatedKey>builder().name("tenants")
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).maxQueue(10).config()).build();
        GatedKey key = new GatedKey("k");
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        // Its second hashCode is the map's putIfAbsent, after the call reserved its place in the count.
        Thread caller = callStoppedInHashCode(partitioned, key, 1, outcome);

        partitioned.drain(Duration.ZERO);
        key.open();
        caller.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(reasonOf(outcome.get())).isEqualTo(Rejection.Reason.CLOSED);
        Bulkhead created = partitioned.partition(key).orElseThrow();
        assertThat(created.isClosed()).as("the partition the drain's walk missed").isTrue();
        assertThat(reasonOf(catchThrowable(() -> created.call(() -> "ran")))).isEqualTo(Rejection.Reason.CLOSED);
    }

    @Test
    void aCallThatMeetsTheCloseBeforeCreatingItsPartitionRunsNoConfigFor() throws Exception {
        AtomicInteger configured = new AtomicInteger();
        PartitionedBulkhead<GatedKey> partitioned = PartitionedBulkhead.<GatedKey>builder().name("tenants")
                .configFor(key -> {
                    configured.incrementAndGet();
                    return null;
                })
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).maxQueue(10).config()).build();
        GatedKey key = new GatedKey("k");
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        // Its first hashCode is the map's lookup, after the call found the bulkhead open.
        Thread caller = callStoppedInHashCode(partitioned, key, 0, outcome);

        partitioned.close();
        key.open();
        caller.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(reasonOf(outcome.get())).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(configured).as("configFor calls for a call refused CLOSED").hasValue(0);
        assertThat(partitioned.partitionCount()).isZero();
    }
}
