package dev.bulwark.benchmarks;

import dev.bulwark.Bulkhead;
import dev.bulwark.CallOptions;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.ThrowingSupplier;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 16: what a weight or a priority costs on an uncontended call, side by side with the bare call in the same
 * run (ratios within one run count; the machine is shared). One thread, a free slot every time, an operation that
 * returns a constant. {@code bare} is {@code call(op)}; {@code weighted} takes 2 slots; {@code prioritized} is weight
 * 1 at {@code HIGH}, which leaves the single-slot path; {@code reserved} is a NORMAL call on a bulkhead with a
 * CRITICAL reserve (the single-slot path compares against the headroom); the permit pair does the same by
 * {@code acquire}/{@code close}. Run with {@code -prof gc}: the call forms allocate 0 B/op (the options are
 * constants); a permit is one small object unless escape analysis removes it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class WeightedBenchmark {

    private static final CallOptions WEIGHT_TWO = CallOptions.weight(2);
    private static final CallOptions HIGH = CallOptions.priority(Priority.HIGH);

    private final ThrowingSupplier<Object, RuntimeException> operation = () -> Boolean.TRUE;
    private Bulkhead bulkhead;
    private Bulkhead reserving;

    /** Builds the bulkheads: limit 10, no queue, no listener (as {@link UncontendedCallBenchmark}). */
    @Setup(Level.Trial)
    public void setUp() {
        bulkhead = Bulkhead.builder().name("weighted").maxConcurrency(10).build();
        reserving = Bulkhead.builder().name("reserving").maxConcurrency(10).reserve(Priority.CRITICAL, 2).build();
    }

    /** @return the operation's result, through {@code call(op)} */
    @Benchmark
    public Object bare() {
        return bulkhead.call(operation);
    }

    /** @return the operation's result, through {@code call(CallOptions.weight(2), op)} */
    @Benchmark
    public Object weighted() {
        return bulkhead.call(WEIGHT_TWO, operation);
    }

    /** @return the operation's result, through {@code call(CallOptions.priority(HIGH), op)} */
    @Benchmark
    public Object prioritized() {
        return bulkhead.call(HIGH, operation);
    }

    /** @return the operation's result, through a NORMAL call on a bulkhead with a CRITICAL reserve */
    @Benchmark
    public Object reserved() {
        return reserving.call(operation);
    }

    /** @return whether the permit was released, after {@code acquire()} and {@code close()} */
    @Benchmark
    public boolean barePermit() {
        Permit permit = bulkhead.acquire();
        permit.close();
        return permit.isReleased();
    }

    /** @return whether the permit was released, after {@code acquire(2)} and {@code close()} */
    @Benchmark
    public boolean weightedPermit() {
        Permit permit = bulkhead.acquireWith(WEIGHT_TWO);
        permit.close();
        return permit.isReleased();
    }
}
