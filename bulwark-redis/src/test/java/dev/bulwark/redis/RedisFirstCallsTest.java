package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.redis.testing.RedisServer;
import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the cluster-wide bulkhead: a fresh JVM's first calls through a {@link RedisBulkhead} (see
 * {@link RedisFirstCalls}, one fresh JVM per scenario, against one real {@code redis-server}) pay on the caller's
 * path about what a warm JVM's calls pay, and keep their max wait.
 *
 * <p>The bounds count the classes the JVM loads during each first call, which a loaded machine does not inflate
 * (times it does). Before the fix, the first admission of a JVM loaded 83 classes (the record {@code equals} of the
 * limits, linked through {@code ObjectMethods}: 26 to 60 ms of CPU, 37 to 490 ms of wall time on this machine,
 * against 1 to 3 ms of CPU warm), the first async refusal 8 to 10 and the first async grant 13 to 16 (the core's
 * refusal classes and the common pool's first worker); now 6 (4 to 7 ms of CPU), 3 and 6.
 *
 * <p>The counts leave out the classes the Redis client (Lettuce, on Netty) loads on its own threads meanwhile, read
 * by name from the child's class-load log: measured three runs per scenario, the first admission loads 8 (Bulwark's
 * lambdas, their method-handle forms, the permit handle), the first refusal 1, the first async refusal 4, the
 * first grant 2 and the first async grant 8.
 */
class RedisFirstCallsTest {

    private static RedisServer server;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @Test
    void aFreshJvmsFirstCallsLoadAlmostNothingOnTheCallersPathAndKeepTheirMaxWait() throws Exception {
        List<String> scenarios = List.of("refusal", "asyncRefusal", "grant", "asyncGrant");
        ExecutorService twoAtATime = Executors.newFixedThreadPool(2);
        List<Future<FreshJvm.Result>> runs = new ArrayList<>();
        String prefix = "first-calls-" + UUID.randomUUID();
        try {
            for (String scenario : scenarios) {
                runs.add(twoAtATime.submit(() -> FreshJvm.run(RedisFirstCalls.class, Duration.ofSeconds(60),
                        List.of(FirstUseMeter.LOG_CLASS_LOADS), Integer.toString(server.port()), prefix, scenario)));
            }
            for (int i = 0; i < scenarios.size(); i++) {
                FreshJvm.Result run = runs.get(i).get();
                String output = scenarios.get(i) + ":\n" + run.output();
                assertThat(run.exitCode()).as(output).isZero();
                Map<String, Long> figures = FirstUseMeter.figures(run.output());
                assertThat(figures).as(output).doesNotContainKeys("cold.unexpected", "warm.unexpected");
                // The first admission of the JVM: a round trip, not the linking of a record's equals.
                assertThat(ownLoads(run, "cold.admitted")).as(output).hasSizeLessThanOrEqualTo(15);
                switch (scenarios.get(i)) {
                    case "refusal" -> assertThat(ownLoads(run, "cold.refusal")).as(output)
                            .hasSizeLessThanOrEqualTo(3);
                    case "asyncRefusal" -> assertThat(ownLoads(run, "cold.asyncRefusal")).as(output)
                            .hasSizeLessThanOrEqualTo(5);
                    case "grant" -> {
                        assertThat(ownLoads(run, "cold.grant")).as(output).hasSizeLessThanOrEqualTo(3);
                        // Released after 20 ms: granted well inside the 500 ms max wait.
                        assertThat(figures.get("cold.grant")).as(output).isLessThan(500_000);
                        // The JVM's first wait timeout: a 100 ms max wait, kept and not overrun.
                        assertThat(figures.get("cold.timeout")).as(output).isBetween(100_000L, 300_000L);
                    }
                    default -> {
                        assertThat(ownLoads(run, "cold.asyncGrant")).as(output).hasSizeLessThanOrEqualTo(9);
                        assertThat(figures.get("cold.asyncGrant")).as(output).isLessThan(500_000);
                    }
                }
            }
        } finally {
            twoAtATime.shutdownNow();
        }
    }

    /**
     * The classes a section loaded, but for Lettuce's and Netty's own: the client's event loop loads some at times
     * its scheduling decides ({@code DefaultPromise$1} in one run of three, which took the first async refusal from
     * 4 to 5 classes, its bound).
     */
    private static List<String> ownLoads(FreshJvm.Result run, String section) {
        return FirstUseMeter.without(FirstUseMeter.classesLoaded(run.output(), section), "io.netty.", "io.lettuce.");
    }
}
