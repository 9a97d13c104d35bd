package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 38: a flood of client-chosen keys at a full partition table. By default a new key evicts an idle partition
 * at once (least recently used first), so the flood cannot lock other tenants out for the idle timeout; only
 * partitions in use are never evicted. On the code before, every test here failed with {@code PARTITION_LIMIT}: a
 * full table refused every new key until the idle timeout.
 */
class PartitionedBulkheadFloodTest {

    private final FakeTicker ticker = new FakeTicker();

    private PartitionedBulkhead<String> table(int maxPartitions) {
        return PartitionedBulkhead.<String>builder().name("tenants").ticker(ticker)
                .idleTimeout(Duration.ofMinutes(1)).maxPartitions(maxPartitions).build();
    }

    @Test
    void aFloodOfOneOffKeysDoesNotLockANewTenantOut() {
        PartitionedBulkhead<String> tenants = table(100);
        for (int i = 0; i < 10_000; i++) {
            tenants.call("flood-" + i, () -> 1);
        }

        assertThat(tenants.call("new-tenant", () -> 2)).isEqualTo(2);
        assertThat(tenants.partitionCount()).isEqualTo(100);
        assertThat(tenants.partitions()).hasSize(100).containsKey("new-tenant");
    }

    @Test
    void aTenantIdleThroughTheFloodGetsAPartitionAgain() {
        PartitionedBulkhead<String> tenants = table(100);
        tenants.call("regular", () -> 1);
        ticker.advance(Duration.ofSeconds(30)); // idle, but not for the idle timeout
        for (int i = 0; i < 1_000; i++) {
            tenants.call("flood-" + i, () -> 1);
        }

        assertThat(tenants.call("regular", () -> 2)).isEqualTo(2);
    }

    @Test
    void aPartitionUsedAgainGoesAfterOnesUsedOnce() {
        PartitionedBulkhead<String> tenants = table(3);
        tenants.call("a", () -> 1);
        tenants.call("b", () -> 1);
        tenants.call("c", () -> 1);
        Bulkhead aBefore = tenants.partition("a").orElseThrow();
        tenants.call("a", () -> 1); // used again: a second chance when the clock comes

        tenants.call("d", () -> 1);

        assertThat(tenants.partitions()).containsOnlyKeys("a", "c", "d");
        assertThat(tenants.partition("a")).containsSame(aBefore);
    }

    @Test
    void aTenantThatKeepsCallingKeepsItsPartitionThroughAFlood() {
        PartitionedBulkhead<String> tenants = table(10);
        tenants.call("regular", () -> 1);
        Bulkhead before = tenants.partition("regular").orElseThrow();
        for (int i = 0; i < 1_000; i++) {
            tenants.call("flood-" + i, () -> 1);
            tenants.call("regular", () -> 1);
        }

        assertThat(tenants.partition("regular")).containsSame(before);
    }

    @Test
    void partitionsInUseAreNeverEvictedAndANewKeyIsThenRefusedWithoutBuildingAnything() {
        AtomicInteger configured = new AtomicInteger();
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants").ticker(ticker)
                .maxPartitions(20).configFor(key -> {
                    configured.incrementAndGet();
                    return null;
                }).build();
        List<CompletableFuture<Integer>> running = new ArrayList<>();
        List<CompletableFuture<Integer>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            CompletableFuture<Integer> operation = new CompletableFuture<>();
            running.add(operation);
            calls.add(tenants.callAsync("busy-" + i, () -> operation));
        }

        for (int i = 0; i < 100; i++) {
            String key = "new-" + i;
            assertThat(catchThrowable(() -> tenants.call(key, () -> 1)))
                    .isInstanceOfSatisfying(BulkheadRejectedException.class, refused ->
                            assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.PARTITION_LIMIT));
        }
        assertThat(configured).hasValue(20);
        assertThat(tenants.partitions()).hasSize(20);

        running.forEach(operation -> operation.complete(1));
        calls.forEach(call -> assertThat(call).isCompletedWithValue(1));
        assertThat(tenants.call("new-0", () -> 2)).isEqualTo(2);
        assertThat(tenants.partitionCount()).isEqualTo(20);
    }

    /**
     * The eviction clock raced: four threads call 300 keys through a table of 50, every new key evicting another's
     * partition. When quiet, the count equals the partitions that exist, at most the limit, and every partition
     * can still be used; no call ran in an evicted partition (each call's own bulkhead is its key's live one).
     */
    @Test
    void newKeysRacingForAFullTableKeepTheCountExact() throws Exception {
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("raced").maxPartitions(50)
                .build();
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger refusedInUse = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < 20_000; i++) {
                        String key = "k" + ThreadLocalRandom.current().nextInt(300);
                        try {
                            tenants.call(key, () -> 1);
                        } catch (BulkheadRejectedException refused) {
                            // Possible only while the 16 partitions the clock looked at were all in use.
                            refusedInUse.incrementAndGet();
                        }
                    }
                } catch (Throwable failure) {
                    failures.add(failure);
                }
            });
            threads.add(thread);
            thread.start();
        }
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(failures).isEmpty();
        assertThat(tenants.partitionCount()).isEqualTo(tenants.partitions().size()).isLessThanOrEqualTo(50);
        for (int i = 0; i < 300; i++) {
            assertThat(tenants.call("k" + i, () -> 2)).isEqualTo(2);
        }
        assertThat(tenants.partitionCount()).isEqualTo(tenants.partitions().size()).isEqualTo(50);
    }
}
