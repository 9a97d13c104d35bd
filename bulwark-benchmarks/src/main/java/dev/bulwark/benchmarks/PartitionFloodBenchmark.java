package dev.bulwark.benchmarks;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Permit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A flood of one-off keys at a full partition table (issue 38): what a call for a known key costs, what a new key
 * costs when it takes an idle partition's place, and what a refused new key costs when every partition is in use,
 * by default ({@code evictIdleWhenFull(true)}: a bounded clock) and as before ({@code false}: a sweep of every
 * partition per refusal). The goal: a refused or admitted new key costs about what a known key costs, whatever the
 * table's size. The two groups time a known tenant's calls (sample mode: read its p99) while a second thread floods
 * the same full table with one-off keys, and while the second thread is another known tenant instead.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class PartitionFloodBenchmark {

    /** The table's size, full in every row. */
    @Param({"1000", "10000"})
    public int maxPartitions;

    /** {@code true}: the default clock eviction; {@code false}: the sweep of before. */
    @Param({"true", "false"})
    public boolean evictIdleWhenFull;

    private PartitionedBulkhead<String> idleTable;
    private PartitionedBulkhead<String> busyTable;
    private final List<Permit> held = new ArrayList<>();
    private long next;

    /** Fills one table with idle partitions and another with partitions that each hold a slot. */
    @Setup(Level.Trial)
    public void setUp() {
        idleTable = table();
        busyTable = table();
        for (int i = 0; i < maxPartitions; i++) {
            String key = "tenant-" + i;
            idleTable.call(key, () -> 1);
            busyTable.call(key, () -> 1);
            held.add(busyTable.partition(key).orElseThrow().tryAcquire().orElseThrow());
        }
    }

    private PartitionedBulkhead<String> table() {
        return PartitionedBulkhead.<String>builder().maxPartitions(maxPartitions)
                .evictIdleWhenFull(evictIdleWhenFull).build();
    }

    /** Gives the held slots back. */
    @TearDown(Level.Trial)
    public void tearDown() {
        held.forEach(Permit::close);
        held.clear();
    }

    /**
     * A call for a key that has a partition, in the full table.
     *
     * @return the result
     */
    @Benchmark
    public Object knownKey() {
        return busyTable.call("tenant-7", () -> 1);
    }

    /**
     * A call for a key never seen, in a full table of idle partitions: it takes one's place (by default), or sweeps
     * and is refused (without {@code evictIdleWhenFull}: none is idle for the idle timeout).
     *
     * @return the result, or the refusal
     */
    @Benchmark
    public Object newKeyIdleTable() {
        try {
            return idleTable.call("flood-" + next++, () -> 1);
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    /**
     * A call for a key never seen, in a full table whose every partition holds a slot: refused.
     *
     * @return the refusal
     */
    @Benchmark
    public Object newKeyBusyTable() {
        try {
            return busyTable.call("flood-" + next++, () -> 1);
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    /**
     * A known tenant's call while another thread floods the table with one-off keys.
     *
     * @return the result
     */
    @Benchmark
    @Group("flooded")
    @GroupThreads(1)
    @BenchmarkMode(Mode.SampleTime)
    public Object floodedKnownTenant() {
        return idleTable.call("tenant-7", () -> 1);
    }

    /**
     * The flood beside {@link #floodedKnownTenant()}: one-off keys, each taking an idle partition's place.
     *
     * @return the result, or the refusal
     */
    @Benchmark
    @Group("flooded")
    @GroupThreads(1)
    @BenchmarkMode(Mode.SampleTime)
    public Object floodedByNewKeys() {
        return newKeyIdleTable();
    }

    /**
     * A known tenant's call while another known tenant calls: the baseline of {@link #floodedKnownTenant()}.
     *
     * @return the result
     */
    @Benchmark
    @Group("steady")
    @GroupThreads(1)
    @BenchmarkMode(Mode.SampleTime)
    public Object steadyKnownTenant() {
        return idleTable.call("tenant-7", () -> 1);
    }

    /**
     * Another known tenant beside {@link #steadyKnownTenant()}.
     *
     * @return the result
     */
    @Benchmark
    @Group("steady")
    @GroupThreads(1)
    @BenchmarkMode(Mode.SampleTime)
    public Object steadyOtherTenant() {
        return idleTable.call("tenant-8", () -> 1);
    }
}
