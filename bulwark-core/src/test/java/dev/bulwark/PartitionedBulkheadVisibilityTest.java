package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.bulwark.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Issue 38, finding 4 ("nobody sees the attack") and finding 3 (long keys stored twice): a partitioned bulkhead's
 * refusals, {@code PARTITION_LIMIT} above all, reach listeners (and so the meters) and the log, at a rate limit; the
 * table's occupancy is readable; a long key appears abbreviated in its partition's name. Before, a partitioned
 * bulkhead had no listener, no occupancy beyond the partition count, no log line, and named a partition
 * {@code name[key]} with the whole key.
 */
class PartitionedBulkheadVisibilityTest {

    private final FakeTicker ticker = new FakeTicker();

    /** Records the events a listener hears. */
    private static final class Heard implements BulkheadListener {
        final ConcurrentLinkedQueue<Rejection> rejections = new ConcurrentLinkedQueue<>();
        final AtomicInteger admitted = new AtomicInteger();
        final AtomicInteger released = new AtomicInteger();

        @Override
        public void admitted(long waitedNanos, Priority priority) {
            admitted.incrementAndGet();
        }

        @Override
        public void rejected(Rejection rejection) {
            rejections.add(rejection);
        }

        @Override
        public void released(long executionNanos) {
            released.incrementAndGet();
        }
    }

    private PartitionedBulkhead.Builder<String> tenants(int maxPartitions) {
        return PartitionedBulkhead.<String>builder().name("tenants").ticker(ticker).maxPartitions(maxPartitions)
                .defaultConfig(Bulkhead.builder().maxConcurrency(1).config());
    }

    @Test
    void aPartitionLimitRefusalReachesTheListenerBeforeTheHandler() {
        List<String> order = new ArrayList<>();
        PartitionedBulkhead<String> tenants = tenants(1).onRejected(r -> order.add("handler " + r.reason())).build();
        tenants.addListener(new BulkheadListener() {
            @Override
            public void rejected(Rejection rejection) {
                order.add("listener " + rejection.reason() + " " + rejection.bulkheadName());
            }
        });
        CompletableFuture<Void> held = new CompletableFuture<>();
        tenants.callAsync("busy", () -> held);

        BulkheadRejectedException refused = catchThrowableOfType(BulkheadRejectedException.class,
                () -> tenants.call("new", () -> 1));

        assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.PARTITION_LIMIT);
        assertThat(order).containsExactly("listener PARTITION_LIMIT tenants", "handler PARTITION_LIMIT");
        held.complete(null);
    }

    @Test
    void theListenerHearsPartitionsMadeBeforeAndAfterItWasAttached() {
        PartitionedBulkhead<String> tenants = tenants(10).build();
        tenants.call("before", () -> 1);
        Heard heard = new Heard();
        tenants.addListener(heard);

        tenants.call("before", () -> 1);
        tenants.call("after", () -> 1);
        CompletableFuture<Void> held = new CompletableFuture<>();
        tenants.callAsync("after", () -> held);
        Throwable queueFull = catchThrowableOfType(BulkheadRejectedException.class,
                () -> tenants.call("after", () -> 1));

        assertThat(heard.admitted).hasValue(3);
        assertThat(heard.released).hasValue(2);
        assertThat(heard.rejections).singleElement().satisfies(r -> {
            assertThat(r.reason()).isEqualTo(Rejection.Reason.QUEUE_FULL);
            assertThat(r.bulkheadName()).isEqualTo("tenants[after]");
        });
        assertThat(queueFull).isNotNull();
        held.complete(null);
    }

    @Test
    void aDetachedListenerHearsNothingMore() {
        PartitionedBulkhead<String> tenants = tenants(10).build();
        Heard heard = new Heard();
        Subscription subscription = tenants.addListener(heard);
        tenants.call("a", () -> 1);
        subscription.close();

        tenants.call("a", () -> 1);
        tenants.call("b", () -> 1);

        assertThat(heard.admitted).hasValue(1);
    }

    @Test
    void closedRefusalsOfThePartitionedBulkheadAreHeard() {
        PartitionedBulkhead<String> tenants = tenants(10).build();
        Heard heard = new Heard();
        tenants.addListener(heard);
        tenants.close();

        catchThrowableOfType(BulkheadRejectedException.class, () -> tenants.call("a", () -> 1));

        assertThat(heard.rejections).extracting(Rejection::reason).containsExactly(Rejection.Reason.CLOSED);
    }

    @Test
    void occupancyIsReadable() {
        PartitionedBulkhead<String> tenants = tenants(2).build();
        CompletableFuture<Void> held = new CompletableFuture<>();
        tenants.callAsync("a", () -> held);
        tenants.callAsync("a", () -> CompletableFuture.completedFuture(null)).exceptionally(e -> null);
        tenants.call("b", () -> 1);
        tenants.call("c", () -> 1); // evicts b, idle, to make room

        assertThat(tenants.maxPartitions()).isEqualTo(2);
        assertThat(tenants.partitionCount()).isEqualTo(2);
        assertThat(tenants.evictionCount()).isEqualTo(1);
        assertThat(tenants.executingCount()).isEqualTo(1);
        assertThat(tenants.queuedCount()).isZero();
        held.complete(null);
        assertThat(tenants.executingCount()).isZero();
    }

    @Test
    void theFirstPartitionLimitRefusalIsLoggedThenAtMostOneLineAMinute() {
        Logger logger = Logger.getLogger("dev.bulwark.partition");
        List<LogRecord> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        String name = "visibility-flood";
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                // Only this test's bulkhead and the rehearsal's: another test's flood line, written late on the
                // logging thread, must not count here.
                String message = String.valueOf(record.getMessage());
                if (message.contains("'" + name + "'")
                        || message.contains(dev.bulwark.internal.FirstUse.PER_KEY_REHEARSAL)) {
                    lines.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(capture);
        try {
            PartitionedBulkhead<String> tenants = tenants(1).name(name).build();
            CompletableFuture<Void> held = new CompletableFuture<>();
            tenants.callAsync("busy", () -> held);

            for (int i = 0; i < 100; i++) {
                refuse(tenants, "flood-" + i);
            }
            // Written on another thread: a refused caller never waits for the logging back end.
            org.awaitility.Awaitility.await().until(() -> !lines.isEmpty());
            assertThat(lines).singleElement().satisfies(line -> {
                assertThat(line.getLevel()).isEqualTo(Level.WARNING);
                assertThat(line.getMessage()).contains("'" + name + "' refused 1 call for new keys (PARTITION_LIMIT)",
                        "all 1 partitions were in use");
            });

            ticker.advance(Duration.ofSeconds(59));
            refuse(tenants, "flood-a");
            assertThat(lines).hasSize(1);
            ticker.advance(Duration.ofSeconds(1));
            refuse(tenants, "flood-b");
            org.awaitility.Awaitility.await().until(() -> lines.size() == 2);
            assertThat(lines.get(1).getMessage()).contains("refused 101 calls for new keys");
            held.complete(null);

            // The first-use rehearsal's own refusal, at every start, must not warn of a flood.
            PartitionedBulkhead<String> rehearsal = PartitionedBulkhead.<String>builder()
                    .name(dev.bulwark.internal.FirstUse.PER_KEY_REHEARSAL).maxPartitions(1).build();
            CompletableFuture<Void> busy = new CompletableFuture<>();
            rehearsal.callAsync("b", () -> busy);
            refuse(rehearsal, "c");
            assertThat(lines).hasSize(2);
            busy.complete(null);
        } finally {
            logger.removeHandler(capture);
        }
    }

    private static void refuse(PartitionedBulkhead<String> tenants, String key) {
        assertThat(catchThrowableOfType(BulkheadRejectedException.class, () -> tenants.call(key, () -> 1))
                .rejection().reason()).isEqualTo(Rejection.Reason.PARTITION_LIMIT);
    }

    @Test
    void aLongKeyIsAbbreviatedInItsPartitionsName() {
        PartitionedBulkhead<String> tenants = tenants(10).build();
        String longKey = "k".repeat(8_000);
        tenants.call(longKey, () -> 1);
        tenants.call("short", () -> 1);

        String name = tenants.partition(longKey).orElseThrow().name();
        assertThat(name).isEqualTo(tenants.partitionName(longKey))
                .startsWith("tenants[" + "k".repeat(48) + "...#")
                .hasSize("tenants[".length() + 48 + 4 + 8 + 1)
                .endsWith(String.format("%08x]", longKey.hashCode()));
        assertThat(tenants.partition("short").orElseThrow().name()).isEqualTo("tenants[short]");
        String sixtyFour = "x".repeat(64);
        assertThat(tenants.partitionName(sixtyFour)).isEqualTo("tenants[" + sixtyFour + "]");
        String surrogateAt48 = "y".repeat(47) + "\uD83D\uDE00" + "z".repeat(40);
        assertThat(tenants.partitionName(surrogateAt48)).startsWith("tenants[" + "y".repeat(47) + "...#");
    }

    /**
     * The handshake of {@code PartitionEvents}: a listener attached while other threads create partitions hears
     * every call that starts after {@code addListener} returned, on every partition, however the creations and the
     * attach interleaved. Without the check after the offer, a partition created concurrently could miss it.
     */
    @Test
    void aListenerAttachedWhilePartitionsAreCreatedHearsEveryLaterCall() throws Exception {
        for (int round = 0; round < 200; round++) {
            PartitionedBulkhead<Integer> table = PartitionedBulkhead.<Integer>builder().maxPartitions(10_000)
                    .build();
            Heard heard = new Heard();
            int creators = 3;
            int keysEach = 40;
            CyclicBarrier start = new CyclicBarrier(creators + 1);
            CountDownLatch done = new CountDownLatch(creators);
            for (int t = 0; t < creators; t++) {
                int first = t * keysEach;
                new Thread(() -> {
                    await(start);
                    for (int k = first; k < first + keysEach; k++) {
                        table.call(k, () -> 1);
                    }
                    done.countDown();
                }).start();
            }
            await(start);
            table.addListener(heard);
            int before = heard.admitted.get();
            done.await();
            int heardDuringCreation = heard.admitted.get() - before;

            int keys = creators * keysEach;
            for (int k = 0; k < keys; k++) {
                table.call(k, () -> 1);
            }
            assertThat(heard.admitted.get() - before - heardDuringCreation).as("round %d", round).isEqualTo(keys);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
