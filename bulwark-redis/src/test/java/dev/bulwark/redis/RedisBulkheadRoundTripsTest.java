package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.CallOptions;
import dev.bulwark.Priority;
import dev.bulwark.redis.testing.HeldFlusher;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an uncontended call costs in Redis commands, counted by the server ({@code INFO commandstats}): one script
 * to acquire and at most one to release, whatever the weight or priority, sync or async; exactly one per call when
 * each release rides on the instance's next acquire (the flush that would send it alone is held back, through the
 * builder's test seam). Heartbeats
 * and polls are pushed far beyond the test's length so that only the calls' own scripts are counted.
 */
class RedisBulkheadRoundTripsTest {

    private static final int CALLS = 50;

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    private long scriptsRun() {
        String stats = redis.inspect().info("commandstats");
        long total = 0;
        Matcher matcher = Pattern.compile("cmdstat_(?:evalsha|eval):calls=(\\d+)").matcher(stats);
        while (matcher.find()) {
            total += Long.parseLong(matcher.group(1));
        }
        return total;
    }

    private RedisBulkhead.Builder builder() {
        return RedisBulkhead.builder(redis.newClient(), "trips").maxConcurrency(4)
                .leaseDuration(Duration.ofMinutes(10)).heartbeatInterval(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMinutes(5));
    }

    @Test
    void anUncontendedCallRunsOneScriptToAcquireAndAtMostOneToReleaseWhateverItsWeightOrPriority()
            throws Exception {
        RedisBulkhead bulkhead = redis.track(builder().build());
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
        assertThat(scriptsRun()).as("scripts for 4 x %d calls", CALLS).isBetween(4L * CALLS, 2L * 4 * CALLS);
    }

    @Test
    void eachReleaseRidesOnTheNextAcquireWhileNoFlushSendsItAlone() throws Exception {
        HeldFlusher flusher = redis.track(new HeldFlusher());
        RedisBulkhead bulkhead = redis.track(builder().releaseFlusher(flusher).build());
        bulkhead.call(() -> "warm");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("trips")).isZero());
        CallOptions weighted = CallOptions.builder().weight(3).priority(Priority.HIGH).build();
        flusher.hold();
        redis.inspect().configResetstat();

        for (int i = 0; i < CALLS; i++) {
            bulkhead.call(() -> "plain");
            bulkhead.call(weighted, () -> "weighted");
            bulkhead.tryAcquireWith(CallOptions.weight(2)).orElseThrow().close();
        }

        assertThat(scriptsRun()).as("one script per call, each carrying the previous call's release")
                .isEqualTo(3L * CALLS);
        assertThat(redis.holdersOnServer("trips")).as("the last release waits for the flush").isEqualTo(1);
        assertThat(bulkhead.executingCount()).as("a script of this instance sends it first").isZero();
        assertThat(flusher.waiting()).as("one flush per release that found nothing pending").isEqualTo(3 * CALLS);
        flusher.letGo();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("trips")).isZero());
        assertThat(redis.inspect().get("bulwark:{trips}:extra")).as("weights given back exactly").isNull();
    }
}
