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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Saturated bulkhead, the rejection path: limit 1, no queue, the slot held for the whole trial, so every call is
 * refused. The figure is what shedding load costs: the refusal and the exception (if any) the caller receives.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class RejectionBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.SYNC_LIMIT};

    /** The implementation under measurement; see {@link Subjects}. */
    @Param({Subjects.SEMAPHORE, Subjects.BULWARK, Subjects.RESILIENCE4J, Subjects.RESILIENCE4J_NOSTACK,
            Subjects.FAILSAFE, Subjects.FAILSAFE_PERMIT})
    public String subject;

    private Subject bulkhead;
    private Subject.Slot heldSlot;
    private CountingWork work;

    /** Checks the subject, builds its bulkhead and fills it. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        bulkhead = Subjects.create(subject, SubjectSpec.refusing(1));
        heldSlot = bulkhead.occupy();
        work = new CountingWork();
    }

    /** Frees the slot, and fails the trial if any measured call was admitted: then it measured the wrong path. */
    @TearDown(Level.Trial)
    public void tearDown() {
        heldSlot.close();
        if (work.runs != 0) {
            throw new IllegalStateException(subject + " admitted " + work.runs
                    + " calls into a full bulkhead: these figures are not of the rejection path");
        }
    }

    /**
     * One refused call.
     *
     * @return the refusal
     */
    @Benchmark
    public Object refused() {
        return bulkhead.call(work);
    }

    /** Counts its runs; the count stays 0 unless the bulkhead admits a call it should refuse. */
    private static final class CountingWork extends Work {
        int runs;

        @Override
        public Object get() {
            runs++;
            return RESULT;
        }
    }
}
