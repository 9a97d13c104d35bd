package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.CallOptions;
import dev.bulwark.Permit;
import dev.bulwark.redis.testing.HeldFlusher;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scripts' uncontended fast paths (see {@code LuaScripts}, "Cost"): how few commands an uncontended call runs
 * on the server, and that skipping the purge never lets a holder whose lease ran out count, or hide its loss.
 * Expired holders are written into Redis directly, as a killed instance (or a renewal lost for a lease) leaves
 * them; heartbeats and polls are pushed beyond the test's length so that no background script purges them.
 */
class RedisBulkheadFastPathTest {

    private static final int CALLS = 40;

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    private RedisBulkhead instance(String name, int maxConcurrency, RedisBulkheadListener listener) {
        return redis.track(RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(maxConcurrency)
                .leaseDuration(Duration.ofMinutes(10)).heartbeatInterval(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMinutes(5)).redisListener(listener).build());
    }

    private RedisBulkhead instance(String name, int maxConcurrency) {
        return instance(name, maxConcurrency, new RedisBulkheadListener() { });
    }

    /** Commands counted by the server, except the test's own inspection commands. */
    private long commandsOnServer(boolean scriptsOnly) {
        String stats = redis.inspect().info("commandstats");
        long total = 0;
        Matcher matcher = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)").matcher(stats);
        while (matcher.find()) {
            String command = matcher.group(1);
            boolean script = command.equals("evalsha") || command.equals("eval");
            if (script == scriptsOnly && !command.equals("info") && !command.startsWith("config")) {
                total += Long.parseLong(matcher.group(2));
            }
        }
        return total;
    }

    private void addExpiredHolder(String name, String id) {
        long pastMillis = System.currentTimeMillis() - 60_000;
        redis.inspect().zadd("bulwark:{" + name + "}:holders", pastMillis, id);
    }

    @Test
    void anUncontendedCallRunsSevenCommandsInOneScriptWhenItCarriesThePreviousRelease() throws Exception {
        HeldFlusher flusher = redis.track(new HeldFlusher());
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), "seven").maxConcurrency(4)
                .leaseDuration(Duration.ofMinutes(10)).heartbeatInterval(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMinutes(5)).releaseFlusher(flusher).build());
        bulkhead.call(() -> "warm");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("seven")).isZero());
        flusher.hold();
        redis.inspect().configResetstat();

        for (int i = 0; i < CALLS; i++) {
            bulkhead.call(() -> "plain");
        }

        assertThat(commandsOnServer(true)).as("one script per call").isEqualTo(CALLS);
        assertThat(commandsOnServer(false)).as("TIME, HMGET, the release's ZSCORE and ZREM (none in the first "
                + "call), one EXISTS for the queue and extra (no GET: no weighted holder), ZCARD, ZADD")
                .isEqualTo(7L * CALLS - 2);
        assertThat(redis.inspect().info("commandstats")).as("extra is not read while it is absent")
                .doesNotContain("cmdstat_get:");
        // The last release goes alone when the flush runs: TIME, ZSCORE, ZREM, EXISTS.
        flusher.letGo();
        await().untilAsserted(() -> assertThat(commandsOnServer(true)).isEqualTo(CALLS + 1L));
        assertThat(commandsOnServer(false)).isEqualTo(7L * CALLS - 2 + 4);
    }

    @Test
    void anUncontendedCallRunsAtMostNineCommandsInsideItsScripts() {
        RedisBulkhead bulkhead = instance("ten", 4);
        bulkhead.call(() -> "warm");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("ten")).isZero());
        redis.inspect().configResetstat();

        for (int i = 0; i < CALLS; i++) {
            bulkhead.call(() -> "plain");
        }

        // The releases are not awaited by the calls: wait until the server has run every one (counting ZREM, not
        // ZCARD, so that the waiting adds no command).
        await().untilAsserted(() -> assertThat(redis.inspect().info("commandstats")).contains("cmdstat_zrem:calls="
                + CALLS + ","));
        long scripts = commandsOnServer(true);
        assertThat(scripts).isBetween((long) CALLS, 2L * CALLS);
        // 5 to acquire (TIME, HMGET, EXISTS, ZCARD, ZADD); 4 for a release sent alone, 2 for one the next acquire
        // carries (its TIME and EXISTS are the acquire's).
        long alone = scripts - CALLS;
        assertThat(commandsOnServer(false)).as("commands inside the scripts")
                .isEqualTo(5L * CALLS + 4 * alone + 2 * (CALLS - alone));
    }

    @Test
    void aHolderWhoseLeaseRanOutIsNeverCountedThoughNotYetPurged() {
        addExpiredHolder("stale", "dead-instance:1");
        RedisBulkhead bulkhead = instance("stale", 1);

        Optional<Permit> permit = bulkhead.tryAcquire();

        assertThat(permit).as("the expired holder does not take the only slot").isPresent();
        assertThat(bulkhead.tryAcquire()).as("the live one does").isEmpty();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        permit.orElseThrow().close();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("stale")).isZero());
    }

    @Test
    void aKilledInstancesHolderIsSweptWithinOneLeaseThoughEveryCallTakesTheFastPath() {
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), "sweep").maxConcurrency(4)
                .leaseDuration(Duration.ofSeconds(3)).heartbeatInterval(Duration.ofMillis(500))
                .pollInterval(Duration.ofMinutes(5)).build());
        // Holding a permit keeps this instance's heartbeat (a renew, whose purge sweeps) running.
        Permit held = bulkhead.acquire();
        addExpiredHolder("sweep", "dead-instance:1");
        redis.inspect().configResetstat();

        for (int i = 0; i < 10; i++) {
            // The dead holder, the held permit and this call fit in 4: the fast path, which sweeps nothing.
            bulkhead.call(() -> "fast");
        }

        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(
                redis.inspect().zscore("bulwark:{sweep}:holders", "dead-instance:1")).as("swept").isNull());
        assertThat(redis.inspect().info("commandstats")).as("only the heartbeats' renews swept")
                .contains("cmdstat_zremrangebyscore:");
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        held.close();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("sweep")).isZero());
    }

    @Test
    void aLiveHolderWrittenByAnotherInstanceIsCounted() {
        redis.inspect().zadd("bulwark:{live}:holders", System.currentTimeMillis() + 600_000, "other-instance:1");
        RedisBulkhead bulkhead = instance("live", 1);

        assertThat(bulkhead.tryAcquire()).isEmpty();
    }

    @Test
    void anExpiredWeightedHolderGivesItsSlotsBackWhenTheLimitLooksReached() {
        RedisBulkhead bulkhead = instance("weighted", 3);
        addExpiredHolder("weighted", "dead-instance:1#3");
        redis.inspect().set("bulwark:{weighted}:extra", "2");

        // Every holder (the dead one) plus extra (2) leave no room for weight 1 without a purge: it takes the full
        // path, whose purge drops the dead holder and its extra slots; weight 2 then fits on the fast path.
        Permit one = bulkhead.tryAcquireWith(CallOptions.weight(1)).orElseThrow();
        Permit two = bulkhead.tryAcquireWith(CallOptions.weight(2)).orElseThrow();

        assertThat(bulkhead.executingCount()).isEqualTo(3);
        assertThat(redis.inspect().get("bulwark:{weighted}:extra")).isEqualTo("1");
        one.close();
        two.close();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("weighted")).isZero());
        assertThat(redis.inspect().get("bulwark:{weighted}:extra")).isNull();
    }

    @Test
    void closingAPermitWhoseLeaseRanOutReportsItLostThoughNotYetPurged() {
        List<LostPermit> lost = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = instance("ranout", 2, new RedisBulkheadListener() {
            @Override
            public void permitLost(LostPermit lostPermit) {
                lost.add(lostPermit);
            }
        });
        Permit held = bulkhead.acquire();
        String key = "bulwark:{ranout}:holders";
        String id = redis.inspect().zrange(key, 0, 0).get(0);
        // As if its renewals had been lost for a whole lease: Redis holds it, expired, until the next purge.
        redis.inspect().zadd(key, System.currentTimeMillis() - 1_000, id);

        held.close();

        await().untilAsserted(() -> assertThat(lost).hasSize(1));
        assertThat(lost.get(0).cause()).isEqualTo(LostPermit.Cause.UNKNOWN_TO_REDIS);
        assertThat(lost.get(0).permitId()).isEqualTo(id);
        assertThat(redis.holdersOnServer("ranout")).isZero();
    }

    @Test
    void severalCarriedReleasesLeaveInOneScriptAndOnlyTheOneWhoseLeaseRanOutIsReportedLost() throws Exception {
        List<LostPermit> lost = new CopyOnWriteArrayList<>();
        HeldFlusher flusher = redis.track(new HeldFlusher());
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), "several").maxConcurrency(8)
                .leaseDuration(Duration.ofMinutes(10)).heartbeatInterval(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMinutes(5)).redisListener(new RedisBulkheadListener() {
                    @Override
                    public void permitLost(LostPermit lostPermit) {
                        lost.add(lostPermit);
                    }
                }).releaseFlusher(flusher).build());
        Permit plain = bulkhead.acquire();
        Permit heavy = bulkhead.acquireWith(CallOptions.weight(3));
        Permit expiring = bulkhead.acquireWith(CallOptions.weight(2));
        String key = "bulwark:{several}:holders";
        assertThat(redis.inspect().get("bulwark:{several}:extra")).isEqualTo("3");
        String expiringId = redis.inspect().zrange(key, 0, -1).stream().filter(id -> id.endsWith("#2")).findFirst()
                .orElseThrow();
        // As if its renewals had been lost for a whole lease: Redis holds it, expired, until the next purge.
        redis.inspect().zadd(key, System.currentTimeMillis() - 1_000, expiringId);
        flusher.hold();
        plain.close();
        heavy.close();
        expiring.close();
        redis.inspect().configResetstat();

        Permit next = bulkhead.tryAcquire().orElseThrow();

        assertThat(commandsOnServer(true)).as("the three releases ride on the acquire").isEqualTo(1);
        assertThat(redis.inspect().info("commandstats")).as("one ZREM for the three holders")
                .contains("cmdstat_zrem:calls=1,").contains("cmdstat_zscore:calls=3,");
        assertThat(redis.inspect().zrange(key, 0, -1)).as("only the new permit holds a slot").hasSize(1);
        assertThat(redis.inspect().get("bulwark:{several}:extra")).as("both weights given back, once").isNull();
        await().untilAsserted(() -> assertThat(lost).hasSize(1));
        assertThat(lost.get(0).permitId()).isEqualTo(expiringId);
        assertThat(lost.get(0).cause()).isEqualTo(LostPermit.Cause.UNKNOWN_TO_REDIS);
        next.close();
        flusher.letGo();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("several")).isZero());
        assertThat(lost).hasSize(1);
    }
}
