package dev.bulwark.redis.benchmark;

import dev.bulwark.redis.RedisBulkhead;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a cluster-wide bulkhead costs per call against a real {@code redis-server} on loopback.
 * <ul>
 *   <li>{@code ping}: one plain Redis round trip ({@code PING}), the floor any remote call pays.</li>
 *   <li>{@code uncontendedCall}: {@code bulkhead.call(noop)} on one thread; minus {@code ping}'s time, what the
 *       bulkhead adds beyond its one acquire round trip. The release is sent without waiting for it.</li>
 *   <li>{@code fourClients}: four threads, each with its own client (its own connections, as four instances of a
 *       service would have), calling one bulkhead whose limit (64) they never reach: throughput.</li>
 * </ul>
 * Latencies are sampled (median and tail percentiles, more robust than a mean on a busy machine). At the end of
 * each iteration the scripts Redis ran ({@code INFO commandstats}) are divided by the calls made and
 * printed as round trips per call.
 *
 * <p>Run (the machine should be quiet; figures on a shared machine are indicative only):
 * <pre>
 * ./mvnw -B -q -pl bulwark-redis -am test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
 * java -cp \
 *     bulwark-redis/target/test-classes:bulwark-redis/target/classes:$(cat bulwark-redis/target/test-classpath.txt) \
 *     org.openjdk.jmh.Main RedisBulkheadBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedisBulkheadBenchmark {

    private static final String NAME = "benchmark";

    /** The server and the command counts, shared by all benchmark threads. */
    @State(Scope.Benchmark)
    public static class Server {
        RedisServer server;
        RedisClient inspectorClient;
        RedisCommands<String, String> inspector;
        final AtomicLong calls = new AtomicLong();
        long scriptsBefore;

        @Setup(Level.Trial)
        public void start() {
            server = RedisServer.start();
            inspectorClient = RedisClient.create(server.uri());
            inspector = inspectorClient.connect().sync();
        }

        @Setup(Level.Iteration)
        public void resetCounts() {
            calls.set(0);
            scriptsBefore = scriptCalls();
        }

        @TearDown(Level.Iteration)
        public void printRoundTrips() {
            long calls = this.calls.get();
            if (calls > 0) {
                System.out.printf("%n    [Redis scripts per call: %.3f over %d calls]%n",
                        (scriptCalls() - scriptsBefore) / (double) calls, calls);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            inspectorClient.shutdown();
            server.close();
        }

        private long scriptCalls() {
            String stats = inspector.info("commandstats");
            long total = 0;
            Matcher matcher = Pattern.compile("cmdstat_(?:evalsha|eval):calls=(\\d+)").matcher(stats);
            while (matcher.find()) {
                total += Long.parseLong(matcher.group(1));
            }
            return total;
        }
    }

    /** One instance of the service: its own client, connections and bulkhead. */
    @State(Scope.Thread)
    public static class Instance {
        RedisClient client;
        RedisBulkhead bulkhead;
        StatefulRedisConnection<String, String> plain;

        @Setup(Level.Trial)
        public void connect(Server server) {
            client = RedisClient.create(server.server.uri());
            client.setOptions(RedisBulkhead.clientOptions());
            bulkhead = RedisBulkhead.builder(client, NAME).maxConcurrency(64).maxQueue(64).build();
            plain = client.connect();
        }

        @TearDown(Level.Trial)
        public void close() {
            bulkhead.close();
            plain.close();
            client.shutdown();
        }
    }

    @Benchmark
    public String ping(Instance instance) {
        return instance.plain.sync().ping();
    }

    @Benchmark
    public Integer uncontendedCall(Server server, Instance instance) {
        server.calls.incrementAndGet();
        return instance.bulkhead.call(() -> 1);
    }

    @Benchmark
    @Threads(4)
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public Integer fourClients(Server server, Instance instance) {
        server.calls.incrementAndGet();
        return instance.bulkhead.call(() -> 1);
    }
}
