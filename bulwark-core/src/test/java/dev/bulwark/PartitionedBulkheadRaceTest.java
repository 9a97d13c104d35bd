package dev.bulwark;

import static dev.bulwark.PartitionedBulkheadAccountingTest.assertCountMatchesLivePartitions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.GatedKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 19: the partition count stays exact when calls race each other, an idle sweep, and partition creations
 * that fail. The forced interleavings stop one thread inside a key's {@code hashCode} (every lookup, removal and
 * insertion of the partition map calls it) at each point in turn, run the racing call to its end meanwhile, and
 * then check the count; {@link PartitionedBulkheadLinearizabilityTest} explores the interleavings Lincheck can
 * reach.
 */
class PartitionedBulkheadRaceTest {

    private static final Duration IDLE = Duration.ofSeconds(10);

    /** Key {@code a} is idle, {@code z} is fresh, both places are taken: a call for {@code b} sweeps {@code a} out. */
    private record Setup(PartitionedBulkhead<GatedKey> partitioned, FakeTicker ticker, GatedKey a) {
        static Setup create() {
            FakeTicker ticker = new FakeTicker();
            PartitionedBulkhead<GatedKey> partitioned = PartitionedBulkhead.<GatedKey>builder().name("race")
                    .ticker(ticker).idleTimeout(IDLE).maxPartitions(2).build();
            GatedKey a = new GatedKey("a");
            partitioned.call(a, () -> 1);
            partitioned.call(new GatedKey("z"), () -> 1);
            ticker.advance(IDLE.plusSeconds(1));
            partitioned.call(new GatedKey("z"), () -> 1);
            return new Setup(partitioned, ticker, a);
        }
    }

    /**
     * The sweeping call (for a new key) is stopped at each of its {@code hashCode} calls on the evicted key in
     * turn, while a caller of that key finds it evicted, removes it and creates the next one. Issue 19 bug 3: the
     * sweep skipped its decrement when the caller's removal came first, and the count stayed one too high.
     */
    @Test
    void aCallerRemovingAPartitionTheSweepJustEvictedLeavesTheCountExact() throws Exception {
        int pointsTried = exploreGatePoints(true);
        assertThat(pointsTried).as("hashCode calls of the sweeping thread on the evicted key").isPositive();
    }

    /** The same race the other way round: the caller of the evicted key stops, the sweeping call runs. */
    @Test
    void aSweepRunningWhileACallerOfTheEvictedKeyIsStoppedLeavesTheCountExact() throws Exception {
        int pointsTried = exploreGatePoints(false);
        assertThat(pointsTried).as("hashCode calls of the caller on its key").isPositive();
    }

    /** Returns how many gate points were tried; stops when the gated thread no longer reaches the next one. */
    private static int exploreGatePoints(boolean gateTheSweeper) throws Exception {
        for (int skip = 0; ; skip++) {
            Setup setup = Setup.create();
            PartitionedBulkhead<GatedKey> partitioned = setup.partitioned();
            GatedKey a = setup.a();
            FutureTask<Integer> sweeping = new FutureTask<>(() -> partitioned.call(new GatedKey("b"), () -> 2));
            FutureTask<Integer> calling = new FutureTask<>(() -> partitioned.call(a, () -> 1));
            Thread gated = new Thread(gateTheSweeper ? sweeping : calling, "gated");
            Thread other = new Thread(gateTheSweeper ? calling : sweeping, "racing");
            gated.setDaemon(true);
            other.setDaemon(true);
            a.closeOn(gated, skip);
            gated.start();
            FutureTask<Integer> gatedTask = gateTheSweeper ? sweeping : calling;
            await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(30))
                    .until(() -> a.arrived() || gatedTask.isDone());
            if (!a.arrived()) {
                outcome(gatedTask);
                return skip;
            }
            other.start();
            // The racing call runs to its end, or stops where it cannot pass the stopped thread (a lock).
            await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(30))
                    .until(() -> !other.isAlive() || other.getState() == Thread.State.WAITING
                            || other.getState() == Thread.State.TIMED_WAITING);
            a.open();
            Object sweepOutcome = outcome(sweeping);
            Object callOutcome = outcome(calling);

            assertThat(partitioned.partitionCount()).as("gate point %d: sweep %s, call %s, partitions %s", skip,
                    sweepOutcome, callOutcome, partitioned.partitions().keySet())
                    .isEqualTo(partitioned.partitions().size());
            // Whatever happened, once everything is idle both places must be free for new keys.
            setup.ticker().advance(IDLE.plusSeconds(1));
            assertThat(partitioned.call(new GatedKey("fresh1"), () -> 3)).isEqualTo(3);
            assertThat(partitioned.call(new GatedKey("fresh2"), () -> 4)).isEqualTo(4);
            assertCountMatchesLivePartitions(partitioned);
        }
    }

    /** The call's result, or its Bulwark refusal reason. */
    private static Object outcome(FutureTask<Integer> task) throws Exception {
        try {
            return task.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof BulkheadRejectedException refused) {
                return refused.rejection().reason();
            }
            throw e;
        }
    }

    /**
     * Threads race on few keys and few places, with every partition idle almost at once (the clock moves on every
     * read), so creation, eviction by sweeps and removal by callers interleave constantly; one key's configuration
     * fails now and then and asynchronous calls mix in. Quiet again, the count must equal the live partitions, and
     * every place must be usable.
     */
    @Test
    void creationFailuresAndEvictionsRacingCallsLeaveTheCountExact() throws Exception {
        AtomicLong clock = new AtomicLong();
        int maxPartitions = 3;
        PartitionedBulkhead<Integer> partitioned = PartitionedBulkhead.<Integer>builder().name("stress")
                .ticker(clock::incrementAndGet).idleTimeout(Duration.ofNanos(3)).maxPartitions(maxPartitions)
                .defaultConfig(Bulkhead.builder().maxConcurrency(100).config())
                .configFor(key -> {
                    if (key == 0 && ThreadLocalRandom.current().nextBoolean()) {
                        throw new IllegalStateException("configuration of key 0 failed");
                    }
                    return null;
                }).build();
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                try {
                    start.await();
                    for (int i = 0; i < 20_000; i++) {
                        int key = random.nextInt(6);
                        try {
                            if (random.nextInt(4) == 0) {
                                partitioned.callAsync(key, () -> CompletableFuture.completedFuture(1)).join();
                            } else {
                                partitioned.call(key, () -> 1);
                            }
                        } catch (BulkheadRejectedException | IllegalStateException expected) {
                            // partition limit, or key 0's failing configuration
                        } catch (java.util.concurrent.CompletionException wrapped) {
                            if (!(wrapped.getCause() instanceof BulkheadRejectedException
                                    || wrapped.getCause() instanceof IllegalStateException)) {
                                unexpected.add(wrapped);
                            }
                        }
                    }
                } catch (Throwable e) {
                    unexpected.add(e);
                }
            });
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join(120_000);
            assertThat(worker.isAlive()).as("stuck").isFalse();
        }

        assertThat(unexpected).isEmpty();
        assertCountMatchesLivePartitions(partitioned);
        assertThat(partitioned.partitionCount()).isLessThanOrEqualTo(maxPartitions);
        for (Bulkhead partition : partitioned.partitions().values()) {
            assertThat(partition.executingCount()).isZero();
        }
        for (int key = 100; key < 100 + maxPartitions; key++) {
            int fresh = key;
            assertThat(partitioned.call(fresh, () -> fresh)).isEqualTo(fresh);
        }
        assertCountMatchesLivePartitions(partitioned);
    }
}
