package dev.bulwark.benchmarks;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Conformance;
import dev.bulwark.benchmarks.subjects.KeyedSubject;
import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Subjects;
import dev.bulwark.benchmarks.subjects.Work;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-key bulkheads: two threads, each calling with its own key. With one bulkhead shared by both keys the threads
 * contend on one state word; with an independent bulkhead per key they cannot; a {@code PartitionedBulkhead} should
 * scale like the independent pair (no global lock on the hot path): two threads on two keys cost what one thread
 * on one key costs, plus nothing. Its fixed cost per call is the map lookup, the use count and the clock read that
 * idle eviction needs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 5, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(KeyedSubject.KEYS)
@State(Scope.Benchmark)
public class PerKeyBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.SYNC_LIMIT};

    /**
     * One shared bulkhead, independent bulkheads (the floor), partitioned, and partitioned under an unsaturated
     * global limit with global FIFO and with fair shares (the common path of fair-share admission).
     */
    @Param({Subjects.BULWARK, Subjects.BULWARK_INDEPENDENT, Subjects.BULWARK_PARTITIONED,
            Subjects.BULWARK_PARTITIONED_GLOBAL, Subjects.BULWARK_PARTITIONED_FAIR})
    public String subject;

    private KeyedSubject keyed;
    private Work work;
    private final AtomicInteger nextKey = new AtomicInteger();

    /** Checks the subject, then builds it. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        keyed = KeyedSubject.of(subject, SubjectSpec.refusing(10));
        work = Work.returningResult();
        nextKey.set(0);
    }

    /** Each benchmark thread's own key. */
    @State(Scope.Thread)
    public static class ThreadKey {
        int key;

        /**
         * Takes the next key.
         *
         * @param benchmark the shared state
         */
        @Setup(Level.Trial)
        public void setUp(PerKeyBenchmark benchmark) {
            key = benchmark.nextKey.getAndIncrement() % KeyedSubject.KEYS;
        }
    }

    /**
     * One call on this thread's key.
     *
     * @param thread this thread's key
     * @return the operation's result
     */
    @Benchmark
    public Object call(ThreadKey thread) {
        return keyed.call(thread.key, work);
    }

    /**
     * The same call with one thread on one key: what a call costs with nobody else around, so that the two-thread
     * row shows whether a second key slows the first down.
     *
     * @param thread this thread's key
     * @return the operation's result
     */
    @Benchmark
    @Threads(1)
    public Object oneThread(ThreadKey thread) {
        return keyed.call(thread.key, work);
    }
}
