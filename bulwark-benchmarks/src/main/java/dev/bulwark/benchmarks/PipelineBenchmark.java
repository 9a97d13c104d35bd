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
 * Composition: an uncontended call through the bare bulkhead, through {@code Pipeline.of(retry, bulkhead)}, and
 * through {@code Pipeline.of(retry, timeout, bulkhead)}, each succeeding at once. The first two should cost the
 * same and allocate nothing (the pipeline passes the chain down instead of wrapping lambdas); a timeout needs a
 * timer task and a derived signal per call, which is what its row shows.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class PipelineBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.SYNC_LIMIT, Check.ASYNC_LIMIT};

    /** The bare bulkhead, then the two pipelines. */
    @Param({Subjects.BULWARK, Subjects.BULWARK_RETRY, Subjects.BULWARK_RETRY_TIMEOUT})
    public String subject;

    private Subject policy;
    private Work work;
    private AsyncWork asyncWork;

    /** Checks the subject, then builds it. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        policy = Subjects.create(subject, SubjectSpec.refusing(10));
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
        return policy.call(work);
    }

    /**
     * One uncontended async call whose stage is already complete.
     *
     * @return the returned future
     */
    @Benchmark
    public CompletableFuture<Object> callAsync() {
        return policy.callAsync(asyncWork);
    }
}
