package dev.bulwark.benchmarks;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Conformance;
import dev.bulwark.benchmarks.subjects.ProductionStacks;
import dev.bulwark.benchmarks.subjects.ProductionStacks.Kind;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The production stack of issue 20, one thread, a sync call that succeeds at once, for each library: the bare
 * bulkhead, the bulkhead with its Micrometer metrics bound, a retry around it, and a retry and a timeout around it
 * (see {@link ProductionStacks} for how each is built). The goals compare each Bulwark row with Bulwark's bare
 * bulkhead and with the peers' row, measured in the same run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class ProductionStackBenchmark {

    /**
     * What the scenario relies on: a bulkhead that enforces its limit (checked through the async path). No call here
     * is refused, so Failsafe's sync refusal defect (see {@code FailsafeSubject}), which turns it away from the other
     * sync rows, does not apply, and its rows are measured as in issue 20's table.
     */
    public static final Check[] GATES = {Check.ASYNC_LIMIT};

    /** The library. */
    @Param({Subjects.BULWARK, Subjects.RESILIENCE4J, Subjects.FAILSAFE})
    public String subject;

    private ProductionStacks.Stack bulkhead;
    private ProductionStacks.Stack metrics;
    private ProductionStacks.Stack retry;
    private ProductionStacks.Stack retryTimeout;
    private Work work;

    /** Checks the library's bulkhead, then builds its four stacks. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        bulkhead = ProductionStacks.create(subject, Kind.BULKHEAD, false);
        metrics = ProductionStacks.create(subject, Kind.METRICS, false);
        retry = ProductionStacks.create(subject, Kind.RETRY, false);
        retryTimeout = ProductionStacks.create(subject, Kind.RETRY_TIMEOUT, false);
        work = Work.returningResult();
    }

    /** Stops the stacks' threads (Resilience4j's time limiter executor). */
    @TearDown(Level.Trial)
    public void tearDown() {
        retryTimeout.close();
    }

    /**
     * The bare bulkhead.
     *
     * @return the result
     */
    @Benchmark
    public Object bulkhead() {
        return bulkhead.call(work);
    }

    /**
     * The bulkhead with its metrics bound.
     *
     * @return the result
     */
    @Benchmark
    public Object metrics() {
        return metrics.call(work);
    }

    /**
     * Retry around the bulkhead.
     *
     * @return the result
     */
    @Benchmark
    public Object retry() {
        return retry.call(work);
    }

    /**
     * Retry, timeout, bulkhead.
     *
     * @return the result
     */
    @Benchmark
    public Object retryTimeout() {
        return retryTimeout.call(work);
    }
}
