package dev.bulwark.benchmarks;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import java.time.Duration;
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
 * What an adaptive limit costs per call (issue 20's goal: uncontended at most 1.5x a fixed bulkhead, contended on
 * 2, 4 and 8 threads not worse than 1.5x a fixed one): a sync call that succeeds at once through a fixed bulkhead
 * and through bulkheads with each adaptive limit, in the same run. The adaptive bulkheads pay two clock reads per
 * call (admission and release) and the lock-free sampler's atomic add; their limits are kept at or above 16
 * ({@code minLimit}), so that no thread count here is ever refused and every call is measured as a call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@State(Scope.Benchmark)
public class AdaptiveBenchmark {

    /** The limit under test: fixed (the reference), or one of the adaptive algorithms. */
    @Param({"fixed", "selfTuning", "aimd", "gradient"})
    public String limit;

    private Bulkhead bulkhead;
    private final Object result = new Object();

    /** Builds the bulkhead. */
    @Setup(Level.Trial)
    public void setUp() {
        Bulkhead.Builder builder = Bulkhead.builder().name("benchmark").maxConcurrency(64).maxQueue(0);
        switch (limit) {
            case "fixed":
                break;
            case "selfTuning":
                builder.adaptive(AdaptiveLimit.selfTuning().minLimit(16).maxLimit(1024).build());
                break;
            case "aimd":
                builder.adaptive(AdaptiveLimit.aimd().minLimit(16).maxLimit(1024)
                        .latencyThreshold(Duration.ofMillis(10)).build());
                break;
            case "gradient":
                builder.adaptive(AdaptiveLimit.gradient().minLimit(16).maxLimit(1024).build());
                break;
            default:
                throw new IllegalArgumentException("unknown limit " + limit);
        }
        bulkhead = builder.build();
    }

    private Object callOnce() {
        return bulkhead.call(() -> result);
    }

    /**
     * One uncontended call.
     *
     * @return the operation's result
     */
    @Benchmark
    @Threads(1)
    public Object uncontended() {
        return callOnce();
    }

    /**
     * A call with two threads calling.
     *
     * @return the operation's result
     */
    @Benchmark
    @Threads(2)
    public Object threads2() {
        return callOnce();
    }

    /**
     * A call with four threads calling.
     *
     * @return the operation's result
     */
    @Benchmark
    @Threads(4)
    public Object threads4() {
        return callOnce();
    }

    /**
     * A call with eight threads calling.
     *
     * @return the operation's result
     */
    @Benchmark
    @Threads(8)
    public Object threads8() {
        return callOnce();
    }
}
