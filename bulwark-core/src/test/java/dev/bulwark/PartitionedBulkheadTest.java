package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** Issue 9: per-key bulkheads. */
class PartitionedBulkheadTest {

    private final FakeTicker ticker = new FakeTicker();

    @Test
    void aNoisyKeyFillsOnlyItsOwnPartition() {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(Bulkhead.builder().maxConcurrency(2).config()).build();
        List<CompletableFuture<String>> noisy = new ArrayList<>();
        List<CompletableFuture<String>> stages = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CompletableFuture<String> stage = new CompletableFuture<>();
            stages.add(stage);
            noisy.add(tenants.callAsync("noisy", () -> stage));
        }

        assertThat(noisy.get(2).handle((v, e) -> e).join()).isInstanceOf(BulkheadRejectedException.class);
        assertThat(tenants.call("quiet", () -> "served")).isEqualTo("served");
        assertThat(tenants.partition("noisy").orElseThrow().name()).isEqualTo("tenants[noisy]");
        assertThat(tenants.partition("noisy").orElseThrow().executingCount()).isEqualTo(2);
        stages.forEach(stage -> stage.complete("done"));
        assertThat(tenants.partition("noisy").orElseThrow().executingCount()).isZero();
    }

    @Test
    void overridesConfigureChosenKeys() {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder()
                .defaultConfig(Bulkhead.builder().maxConcurrency(2).config())
                .configFor(key -> key.equals("premium") ? Bulkhead.builder().maxConcurrency(8).config() : null)
                .build();

        tenants.call("premium", () -> 1);
        tenants.call("basic", () -> 1);

        assertThat(tenants.partition("premium").orElseThrow().maxConcurrency()).isEqualTo(8);
        assertThat(tenants.partition("basic").orElseThrow().maxConcurrency()).isEqualTo(2);
        assertThat(tenants.partitions()).containsOnlyKeys("premium", "basic");
    }

    @Test
    void idlePartitionsAreEvictedAndRecreatedOnDemand() {
        PartitionedBulkhead<Integer> partitioned = PartitionedBulkhead.<Integer>builder().ticker(ticker)
                .idleTimeout(Duration.ofSeconds(30)).maxPartitions(2).evictIdleWhenFull(false).build();
        partitioned.call(1, () -> 1);
        partitioned.call(2, () -> 2);
        Bulkhead first = partitioned.partition(1).orElseThrow();

        // A third key finds the partition limit reached while both are fresh.
        assertThat(catchThrowable(() -> partitioned.call(3, () -> 3)))
                .isInstanceOfSatisfying(BulkheadRejectedException.class, e -> {
                    assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.PARTITION_LIMIT);
                    assertThat(e.rejection().maxConcurrency()).isEqualTo(2);
                });
        ticker.advance(Duration.ofSeconds(31));

        // Idle long enough: the sweep a new key triggers makes room.
        assertThat(partitioned.call(3, () -> 3)).isEqualTo(3);
        assertThat(partitioned.partitionCount()).isEqualTo(1);
        assertThat(partitioned.call(1, () -> 1)).isEqualTo(1);
        assertThat(partitioned.partition(1).orElseThrow()).isNotSameAs(first);
    }

    @Test
    void aPartitionInUseIsNeverEvicted() {
        PartitionedBulkhead<Integer> partitioned = PartitionedBulkhead.<Integer>builder().ticker(ticker)
                .idleTimeout(Duration.ofSeconds(1)).maxPartitions(1).build();
        CompletableFuture<String> running = new CompletableFuture<>();
        CompletableFuture<String> call = partitioned.callAsync(1, () -> running);
        ticker.advance(Duration.ofSeconds(10));

        assertThat(catchThrowable(() -> partitioned.call(2, () -> 2))).isInstanceOf(BulkheadRejectedException.class);
        running.complete("done");
        assertThat(call).isCompletedWithValue("done");
        ticker.advance(Duration.ofSeconds(10));
        assertThat(partitioned.call(2, () -> 2)).isEqualTo(2);
    }

    @Test
    void aGlobalLimitCapsAllKeysTogetherWithoutHoldingOneSlotWhileWaitingForTheOther() throws Exception {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(2).maxQueue(100).build();
        PartitionedBulkhead<Integer> partitioned = PartitionedBulkhead.<Integer>builder().globalLimit(global)
                .defaultConfig(Bulkhead.builder().maxConcurrency(2).maxQueue(100).config()).build();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicIntegerArray perKeyMax = new AtomicIntegerArray(3);
        AtomicIntegerArray perKey = new AtomicIntegerArray(3);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CyclicBarrier start = new CyclicBarrier(6);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            int key = t % 3;
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < 300; i++) {
                        partitioned.run(key, () -> {
                            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                            int mine = perKey.incrementAndGet(key);
                            perKeyMax.accumulateAndGet(key, mine, Math::max);
                            Thread.yield();
                            perKey.decrementAndGet(key);
                            running.decrementAndGet();
                        });
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join(60_000);
            assertThat(thread.isAlive()).as("deadlocked").isFalse();
        }

        assertThat(failures).isEmpty();
        assertThat(maxRunning.get()).isLessThanOrEqualTo(2);
        for (int key = 0; key < 3; key++) {
            assertThat(perKeyMax.get(key)).isLessThanOrEqualTo(2);
        }
        assertThat(global.executingCount()).isZero();
        assertThat(global.queuedCount()).isZero();
        for (Bulkhead partition : partitioned.partitions().values()) {
            assertThat(partition.executingCount()).isZero();
            assertThat(partition.queuedCount()).isZero();
        }
    }

    @Test
    void asyncCallsUnderAGlobalLimitWaitWithoutThreadsAndCanBeCancelled() {
        Bulkhead global = Bulkhead.builder().maxConcurrency(1).maxQueue(10).build();
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().globalLimit(global)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).maxQueue(10).config()).build();
        CompletableFuture<String> slow = new CompletableFuture<>();
        CompletableFuture<String> first = partitioned.callAsync("a", () -> slow);
        CompletableFuture<String> second = partitioned.callAsync("b", () -> CompletableFuture.completedFuture("b"));
        CompletableFuture<String> cancelled = partitioned.callAsync("c", () -> CompletableFuture.completedFuture("c"));
        assertThat(second).isNotDone();

        cancelled.cancel(false);
        assertThat(global.queuedCount()).isEqualTo(1);
        slow.complete("a");

        assertThat(first).isCompletedWithValue("a");
        assertThat(second).isCompletedWithValue("b");
        assertThat(global.executingCount()).isZero();
        assertThat(global.queuedCount()).isZero();
    }

    @Test
    void evictionRacingCallsNeverMakesTwoPartitionsForOneKey() throws Exception {
        PartitionedBulkhead<Integer> partitioned = PartitionedBulkhead.<Integer>builder()
                .idleTimeout(Duration.ofNanos(1)).maxPartitions(1_000)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).maxQueue(1_000).config()).build();
        AtomicInteger insideKeyZero = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(4);
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                for (int i = 0; i < 5_000; i++) {
                    partitioned.run(0, () -> {
                        if (insideKeyZero.incrementAndGet() > 1) {
                            violations.incrementAndGet();
                        }
                        insideKeyZero.decrementAndGet();
                    });
                }
                done.countDown();
            }).start();
        }
        done.await();

        assertThat(violations).hasValue(0);
    }

    @Test
    void forKeyMakesAPipelineStep() {
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().build();
        Policy policy = Pipeline.of(Retry.builder().build(), partitioned.forKey("k"));
        assertThat(policy.call(() -> "ok")).isEqualTo("ok");
        assertThat(partitioned.partition("k")).isPresent();
    }

    @Test
    void badConfigurationFailsFast() {
        assertThatThrownBy(() -> PartitionedBulkhead.builder().maxPartitions(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPartitions");
        assertThatThrownBy(() -> PartitionedBulkhead.builder().idleTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idleTimeout");
        assertThatThrownBy(() -> PartitionedBulkhead.<String>builder().build().call(null, () -> 1))
                .isInstanceOf(NullPointerException.class).hasMessage("key");
    }
}
