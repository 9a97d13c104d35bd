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

/**
 * Uncontended synchronous call: one thread, a free slot every time, an operation that does nothing. What a call
 * costs when the bulkhead is not needed, which is most of the time.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class UncontendedCallBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.SYNC_LIMIT};

    /** The implementation under measurement; see {@link Subjects}. */
    @Param({Subjects.SEMAPHORE, Subjects.BULWARK, Subjects.RESILIENCE4J, Subjects.RESILIENCE4J_NOSTACK,
            Subjects.FAILSAFE, Subjects.FAILSAFE_PERMIT})
    public String subject;

    private Subject bulkhead;
    private Work work;

    /** Checks the subject, then builds its bulkhead. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        bulkhead = Subjects.create(subject, SubjectSpec.refusing(10));
        work = Work.returningResult();
    }

    /**
     * One call through the bulkhead.
     *
     * @return the operation's result
     */
    @Benchmark
    public Object call() {
        return bulkhead.call(work);
    }
}
