package dev.bulwark.benchmarks;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Conformance;
import dev.bulwark.benchmarks.subjects.AsyncWork;
import dev.bulwark.benchmarks.subjects.Subject;
import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Subjects;
import dev.bulwark.benchmarks.subjects.Work;
import java.util.concurrent.CompletableFuture;
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
 * Listener on or off: Bulwark's uncontended sync and async calls with no listener, with one that ignores every
 * event, and with one that ignores the outcomes only. The first difference is what observing execution times costs
 * (two clock readings and the event fan-out); the second is the fan-out alone, since a listener that does not
 * override {@code released} costs no clock reading.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class ListenerBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.SYNC_LIMIT, Check.ASYNC_LIMIT};

    /** Bulwark without a listener, with one of every event, and with one of outcomes only. */
    @Param({Subjects.BULWARK, Subjects.BULWARK_LISTENER, Subjects.BULWARK_OUTCOME_LISTENER})
    public String subject;

    private Subject bulkhead;
    private Work work;
    private AsyncWork asyncWork;

    /** Checks the subject, then builds its bulkhead. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        bulkhead = Subjects.create(subject, SubjectSpec.refusing(10));
        work = Work.returningResult();
        asyncWork = AsyncWork.alreadyCompleted();
    }

    /**
     * One uncontended sync call.
     *
     * @return the operation's result
     */
    @Benchmark
    public Object call() {
        return bulkhead.call(work);
    }

    /**
     * One uncontended async call whose stage is already complete.
     *
     * @return the future the bulkhead returned
     */
    @Benchmark
    public CompletableFuture<Object> callAsync() {
        return bulkhead.callAsync(asyncWork);
    }
}
