package dev.bulwark.benchmarks;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Conformance;
import dev.bulwark.benchmarks.subjects.Subject;
import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Subjects;
import dev.bulwark.benchmarks.subjects.Work;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Hand-off, the FIFO wait path: limit 1, a queue, 4 threads, an operation that does a little work while it holds
 * the slot, so that most calls wait and get the slot handed over by the previous holder. A fair
 * {@link java.util.concurrent.Semaphore} is the floor here: the non-fair one is faster only because it lets newcomers
 * barge ahead of waiters, which a bulkhead that promises arrival order must not do (the table's FIFO column says
 * which subjects keep it).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 5, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(HandOffBenchmark.THREADS)
@State(Scope.Benchmark)
public class HandOffBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.SYNC_LIMIT};

    /** Threads calling at once. */
    static final int THREADS = 4;

    /** How much work (in {@link Blackhole#consumeCPU(long)} tokens) a call does while it holds the slot. */
    static final long WORK_TOKENS = 64;

    /** The implementation under measurement; see {@link Subjects}. */
    @Param({Subjects.SEMAPHORE_FAIR, Subjects.SEMAPHORE, Subjects.BULWARK, Subjects.RESILIENCE4J,
            Subjects.RESILIENCE4J_NOSTACK, Subjects.FAILSAFE, Subjects.FAILSAFE_PERMIT})
    public String subject;

    private Subject bulkhead;
    private Work work;

    /** Checks the subject, then builds a bulkhead of one slot whose queue holds every other thread. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        bulkhead = Subjects.create(subject, SubjectSpec.queueing(1, THREADS));
        work = new Work() {
            @Override
            public Object get() {
                Blackhole.consumeCPU(WORK_TOKENS);
                return RESULT;
            }
        };
    }

    /**
     * One call, waiting for the slot when another thread holds it.
     *
     * @return the operation's result (or a refusal, which would mean a wait timed out: it never should)
     */
    @Benchmark
    public Object handOff() {
        return bulkhead.call(work);
    }
}
