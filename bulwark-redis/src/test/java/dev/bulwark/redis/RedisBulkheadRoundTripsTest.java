package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.CallOptions;
import dev.bulwark.Priority;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an uncontended call costs in Redis commands, counted by the server ({@code INFO commandstats}): one script
 * to acquire and one to release, whatever the weight or priority, sync or async. Heartbeats and polls are pushed
 * far beyond the test's length so that only the calls' own scripts are counted.
 */
class RedisBulkheadRoundTripsTest {

    private static final int CALLS = 50;

    private RedisFixture redis;

    @BeforeEach
    void startRedis() {
        redis = new RedisFixture(RedisServer.start());
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    private long scriptsRun() {
        String stats = redis.inspect().info("commandstats");
        long total = 0;
        Matcher matcher = Pattern.compile("cmdstat_(?:evalsha|eval):calls=(\\d+)").matcher(stats);
        while (matcher.find()) {
            total += Long.parseLong(matcher.group(1));
        }
        return total;
    }

    @Test
    void anUncontendedCallRunsExactlyTwoScriptsWhateverItsWeightOrPriority() throws Exception {
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), "trips").maxConcurrency(4)
                .leaseDuration(Duration.ofMinutes(10)).heartbeatInterval(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMinutes(5)).build());
        bulkhead.call(() -> "warm");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("trips")).isZero());
        CallOptions weighted = CallOptions.builder().weight(3).priority(Priority.HIGH).build();
        redis.inspect().configResetstat();

        for (int i = 0; i < CALLS; i++) {
            bulkhead.call(() -> "plain");
            bulkhead.call(weighted, () -> "weighted");
            bulkhead.callAsync(weighted, () -> CompletableFuture.completedFuture("async")).get(10, TimeUnit.SECONDS);
            bulkhead.tryAcquireWith(CallOptions.weight(2)).orElseThrow().close();
        }

        await().untilAsserted(() -> assertThat(redis.holdersOnServer("trips")).isZero());
        assertThat(scriptsRun()).as("scripts per call x calls").isEqualTo(2L * 4 * CALLS);
    }
}
