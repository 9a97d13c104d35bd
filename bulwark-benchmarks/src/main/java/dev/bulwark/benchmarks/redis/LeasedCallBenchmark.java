package dev.bulwark.benchmarks.redis;

import dev.bulwark.Bulkhead;
import dev.bulwark.benchmarks.subjects.Work;
import dev.bulwark.redis.RedisBulkhead;
import io.lettuce.core.RedisClient;
import java.io.IOException;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One uncontended synchronous call through a leased-mode {@link RedisBulkhead} whose block is held, next to the
 * same call through the in-process {@link Bulkhead} (issue 43, item 4): both with a limit of 10, no queue, one
 * thread and an operation that does nothing. In the leased mode a call is admitted by the instance's local
 * bulkhead and never touches Redis; the renewals (one script per period, 1 s here) run off the calling thread.
 *
 * <p>The setup starts {@code redis-server} from the PATH on a free loopback port (as {@link RedisComparison} does),
 * builds the leased bulkhead (whose {@code build()} runs the first renewal, granting the only instance the whole
 * limit) and checks that a call is admitted before measuring; the teardown prints how many scripts Redis ran during
 * the trial, which are the renewals only. Run it with:
 *
 * <pre>
 * ./mvnw -B -q -pl bulwark-benchmarks -am package -DskipTests
 * java -jar bulwark-benchmarks/target/benchmarks.jar LeasedCallBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-Xmn128m"})
@Threads(1)
@State(Scope.Benchmark)
public class LeasedCallBenchmark {

    /** The in-process bulkhead. */
    public static final String IN_PROCESS = "in-process";
    /** The cluster-wide bulkhead in the leased mode, its block held. */
    public static final String LEASED = "redis-leased";

    private static final int LIMIT = 10;

    /** Which bulkhead the calls go through. */
    @Param({IN_PROCESS, LEASED})
    public String subject;

    private LocalRedis redis;
    private RedisClient client;
    private Bulkhead bulkhead;
    private final Work work = Work.returningResult();
    private long scriptsBefore;
    private long startNanos;

    /**
     * Builds the bulkhead (for the leased one, starts Redis first) and checks that a call is admitted.
     *
     * @throws IOException when {@code redis-server} cannot be started
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        if (subject.equals(IN_PROCESS)) {
            bulkhead = Bulkhead.builder().name(IN_PROCESS).maxConcurrency(LIMIT).maxQueue(0).build();
        } else if (subject.equals(LEASED)) {
            redis = LocalRedis.start();
            client = RedisClient.create(redis.uri());
            client.setOptions(RedisBulkhead.clientOptions());
            bulkhead = RedisBulkhead.builder(client, "leased-call-benchmark").maxConcurrency(LIMIT).maxQueue(0)
                    .leased(Duration.ofSeconds(1)).build();
            scriptsBefore = scripts();
        } else {
            throw new IllegalArgumentException("subject: unknown " + subject);
        }
        if (bulkhead.call(work) != Work.RESULT) {
            throw new IllegalStateException(subject + " did not run the operation");
        }
        startNanos = System.nanoTime();
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

    /** Prints the scripts Redis ran during the trial (the leased bulkhead's renewals), then closes everything. */
    @TearDown(Level.Trial)
    public void tearDown() {
        if (redis == null) {
            return;
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        System.out.printf("%n[%s] scripts run by Redis during the trial: %d in %.1f s%n", subject,
                scripts() - scriptsBefore, seconds);
        ((RedisBulkhead) bulkhead).close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        redis.close();
    }

    private long scripts() {
        return redis.commandStats().entrySet().stream()
                .filter(entry -> entry.getKey().startsWith("eval")).mapToLong(entry -> entry.getValue()[0]).sum();
    }
}
