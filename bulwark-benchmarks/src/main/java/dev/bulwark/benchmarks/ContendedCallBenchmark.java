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
 * Contended synchronous calls: 2, 4 and 8 threads share one bulkhead whose limit (16) is above the thread count,
 * so nobody waits or is refused and the figure is the cost of many threads updating the same state. On a machine
 * with fewer cores than threads these rows mostly measure the scheduler: they get more forks and iterations.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 5, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@State(Scope.Benchmark)
public class ContendedCallBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.SYNC_LIMIT};

    /** Above every thread count used here. */
    static final int LIMIT = 16;

    /** The implementation under measurement; see {@link Subjects}. */
    @Param({Subjects.SEMAPHORE, Subjects.BULWARK, Subjects.RESILIENCE4J, Subjects.RESILIENCE4J_NOSTACK,
            Subjects.FAILSAFE, Subjects.FAILSAFE_PERMIT})
    public String subject;

    private Subject bulkhead;
    private Work work;

    /** Checks the subject, then builds the shared bulkhead. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        bulkhead = Subjects.create(subject, SubjectSpec.refusing(LIMIT));
        work = Work.returningResult();
    }

    /**
     * One call, two threads calling.
     *
     * @return the operation's result
     */
    @Benchmark
    @Threads(2)
    public Object threads2() {
        return bulkhead.call(work);
    }

    /**
     * One call, four threads calling.
     *
     * @return the operation's result
     */
    @Benchmark
    @Threads(4)
    public Object threads4() {
        return bulkhead.call(work);
    }

    /**
     * One call, eight threads calling.
     *
     * @return the operation's result
     */
    @Benchmark
    @Threads(8)
    public Object threads8() {
        return bulkhead.call(work);
    }
}
