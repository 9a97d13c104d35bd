package dev.bulwark.benchmarks;

import dev.bulwark.benchmarks.conformance.Check;
import dev.bulwark.benchmarks.conformance.Conformance;
import dev.bulwark.benchmarks.subjects.AsyncWork;
import dev.bulwark.benchmarks.subjects.Subject;
import dev.bulwark.benchmarks.subjects.SubjectSpec;
import dev.bulwark.benchmarks.subjects.Subjects;
import dev.bulwark.benchmarks.subjects.Work;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
 * Asynchronous hand-off, the async queue path, made deterministic on one thread: limit 1 and a queue of
 * {@value #WAITERS}; one operation is started and holds the slot with a stage that is not complete, {@value #WAITERS}
 * more calls queue behind it without a thread, then the holder's stage completes and the slot passes down the queue,
 * each queued operation completing at once. One benchmark operation is that whole cycle: {@value #WAITERS} + 1 calls,
 * {@value #WAITERS} of them queued and handed the slot.
 *
 * <p>Only subjects that can wait without holding a thread take part: the conformance gate turns away those whose
 * asynchronous wait blocks the caller (on one thread that would never end).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class AsyncHandOffBenchmark {

    /** What the scenario relies on; a subject that fails it is not measured. */
    public static final Check[] GATES = {Check.ASYNC_LIMIT, Check.ASYNC_WAIT};

    /** Calls queued behind the holder in each cycle. */
    static final int WAITERS = 3;

    /** The implementation under measurement; see {@link Subjects}. */
    @Param({Subjects.SEMAPHORE, Subjects.BULWARK, Subjects.RESILIENCE4J, Subjects.RESILIENCE4J_NOSTACK,
            Subjects.FAILSAFE, Subjects.FAILSAFE_PERMIT})
    public String subject;

    private Subject bulkhead;
    private AsyncWork queued;
    private GatedWork holder;

    /** Checks the subject, then builds a bulkhead of one slot whose queue holds the waiters. */
    @Setup(Level.Trial)
    public void setUp() {
        Conformance.require(subject, GATES);
        bulkhead = Subjects.create(subject, SubjectSpec.queueing(1, WAITERS));
        queued = AsyncWork.alreadyCompleted();
        holder = new GatedWork();
    }

    /**
     * One cycle: a holder, {@value #WAITERS} queued calls, and the hand-offs when the holder completes.
     *
     * @param blackhole takes the futures so that none of them can be optimized away
     * @return the last queued call's future
     */
    @Benchmark
    public CompletableFuture<Object> handOff(Blackhole blackhole) {
        CompletableFuture<Object> gate = new CompletableFuture<>();
        holder.stage = gate;
        blackhole.consume(bulkhead.callAsync(holder));
        CompletableFuture<Object> last = null;
        for (int i = 0; i < WAITERS; i++) {
            last = bulkhead.callAsync(queued);
            blackhole.consume(last);
        }
        gate.complete(Work.RESULT);
        if (!last.isDone()) {
            throw new IllegalStateException(subject + ": a queued call did not run when the slot was freed");
        }
        return last;
    }

    /** Returns the stage set for the current cycle; the benchmark is single-threaded. */
    private static final class GatedWork extends AsyncWork {
        CompletableFuture<Object> stage;

        @Override
        public CompletionStage<Object> get() {
            return stage;
        }
    }
}
