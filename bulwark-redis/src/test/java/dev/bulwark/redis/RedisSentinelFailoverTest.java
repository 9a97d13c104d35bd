package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.CallLog;
import dev.bulwark.redis.testing.FailoverReport;
import dev.bulwark.redis.testing.Fleet;
import dev.bulwark.redis.testing.RedisSentinelSetup;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Failover under load on a real Sentinel deployment (1 master, 1 replica, 3 sentinels): three JVMs of four threads
 * each call one bulkhead (limit 4) while the test kills the master with SIGKILL. The calls' own logs (see
 * {@link CallLog}) are the in-flight count outside the bulkhead. Prints what it measured; asserts that every call is
 * accounted for exactly once, that the fleet admits again within {@link #RECOVERY_BOUND}, that any excess over the
 * limit ends within one lease, and that no lease outlives its lease on the new master.
 */
class RedisSentinelFailoverTest {

    static final int LIMIT = 4;
    static final long LEASE_MILLIS = 3_000;
    /** Sentinel's down-after (1 s) and election, plus Lettuce reconnecting through the sentinels (≤ 500 ms apart). */
    static final Duration RECOVERY_BOUND = Duration.ofSeconds(15);

    @Test
    void aFleetSurvivesTheKillOfTheSentinelMasterWithinTheMeasuredBounds() throws Exception {
        String name = "sentinel-failover";
        try (RedisSentinelSetup redis = RedisSentinelSetup.start(1000)) {
            List<String> options = new java.util.ArrayList<>(List.of("mode=sentinel", "target=" + redis.workerTarget(),
                    "name=" + name,
                    "threads=4", "limit=" + LIMIT, "queue=64", "holdMicros=2000", "maxMillis=120000",
                    "leaseMillis=" + LEASE_MILLIS, "heartbeatMillis=1000", "commandTimeoutMillis=500"));
            reconnectDelay().ifPresent(options::add);
            FailoverReport report;
            try (Fleet fleet = Fleet.start(3, options)) {
                report = FailoverReport.run(fleet, LIMIT, () -> {
                    redis.master().kill();
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> redis.masterPortPerSentinel() == redis.replica().port());
                });
            }
            report.print("Sentinel");
            report.assertAccountedFor();
            assertThat(report.recovery()).as("time until the fleet admits again").isLessThan(RECOVERY_BOUND);
            assertThat(report.excess().microsAboveLimit()).as("µs above the limit")
                    .isLessThanOrEqualTo(LEASE_MILLIS * 1000);

            RedisClient client = RedisClient.create(redis.replica().uri());
            try (StatefulRedisConnection<String, String> newMaster = client.connect()) {
                // Within one lease of the load's end every lease is gone: released, or expired if its release
                // was lost with the old master. A script run drops expired entries, as every bulkhead call does.
                await().atMost(Duration.ofMillis(LEASE_MILLIS + 5_000)).untilAsserted(() -> {
                    try (RedisBulkhead probe = RedisBulkhead.builder(withOptions(client), name).build()) {
                        assertThat(probe.executingCount()).isZero();
                        assertThat(probe.queuedCount()).isZero();
                    }
                    assertThat(newMaster.sync().zcard("bulwark:{" + name + "}:holders")).isZero();
                    assertThat(newMaster.sync().zcard("bulwark:{" + name + "}:queue")).isZero();
                });
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void aPrimaryThatNoReplicaAcknowledgesStopsGranting() {
        // min-replicas-to-write: the primary refuses the scripts' writes while fewer replicas than that have
        // acknowledged it within min-replicas-max-lag seconds, so a primary cut off from its replicas stops granting
        // permits that a failover would lose.
        try (RedisServer primary = RedisServer.start("--min-replicas-to-write", "1", "--min-replicas-max-lag", "1",
                "--repl-diskless-sync-delay", "0")) {
            RedisClient client = withOptions(RedisClient.create(primary.uri()));
            try (RedisBulkhead bulkhead = RedisBulkhead.builder(client, "min-replicas").build()) {
                assertThatThrownBy(() -> bulkhead.call(() -> "never"))
                        .isInstanceOfSatisfying(BulkheadRejectedException.class, refused -> assertThat(
                                refused.rejection().reason()).isEqualTo(Rejection.Reason.UNAVAILABLE));

                try (RedisServer replica = RedisServer.start("--replicaof", "127.0.0.1",
                        Integer.toString(primary.port()))) {
                    await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                            .untilAsserted(() -> assertThat(bulkhead.call(() -> 42)).isEqualTo(42));

                    replica.kill();
                    await().atMost(Duration.ofSeconds(30)).until(() -> {
                        try {
                            bulkhead.call(() -> 42);
                            return false;
                        } catch (BulkheadRejectedException refused) {
                            return refused.rejection().reason() == Rejection.Reason.UNAVAILABLE;
                        }
                    });
                }
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static RedisClient withOptions(RedisClient client) {
        client.setOptions(RedisBulkhead.clientOptions());
        return client;
    }

    /**
     * The workers' Lettuce reconnect delay: exponential, capped at 500 ms, or with
     * {@code -Dbulwark.failover.reconnectMaxMillis=lettuce-default} Lettuce's own default (capped at 30 s).
     */
    static java.util.Optional<String> reconnectDelay() {
        String max = System.getProperty("bulwark.failover.reconnectMaxMillis", "500");
        return max.equals("lettuce-default") ? java.util.Optional.empty()
                : java.util.Optional.of("reconnectMaxMillis=" + max);
    }
}
