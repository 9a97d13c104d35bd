package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.redis.testing.FailoverReport;
import dev.bulwark.redis.testing.Fleet;
import dev.bulwark.redis.testing.FleetWorker;
import dev.bulwark.redis.testing.RedisClusterSetup;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Failover under load on a real Redis Cluster of three masters with one replica each: three JVMs of four threads
 * call one bulkhead (limit 4) while the test kills, with SIGKILL, the master that holds the bulkhead's hash slot.
 * Measures and asserts as {@link RedisSentinelFailoverTest} does. The workers' cluster clients refresh their
 * topology (adaptive triggers and every second, as {@code RedisBulkhead.clusterClientOptions()} set it up): without
 * that a client keeps sending to the dead master's address.
 */
class RedisClusterFailoverTest {

    static final int LIMIT = 4;
    static final long LEASE_MILLIS = 3_000;
    /** The node timeout (1 s), the replica's election, and the clients' topology refresh (≤ 1 s). */
    static final Duration RECOVERY_BOUND = Duration.ofSeconds(15);

    @Test
    void aFleetSurvivesTheKillOfTheMasterHoldingTheBulkheadsSlotWithinTheMeasuredBounds() throws Exception {
        String name = "cluster-failover";
        try (RedisClusterSetup cluster = RedisClusterSetup.start(1000)) {
            int slot = cluster.slotOf("{" + name + "}");
            RedisServer master = cluster.masterOf(slot, cluster.nodes().get(0));
            RedisServer replica = cluster.replicaOf(master);
            List<String> options = new java.util.ArrayList<>(List.of("mode=cluster", "target=" + cluster.workerTarget(),
                    "name=" + name,
                    "threads=4", "limit=" + LIMIT, "queue=64", "holdMicros=2000", "maxMillis=120000",
                    "leaseMillis=" + LEASE_MILLIS, "heartbeatMillis=1000", "commandTimeoutMillis=500"));
            RedisSentinelFailoverTest.reconnectDelay().ifPresent(options::add);
            FailoverReport report;
            try (Fleet fleet = Fleet.start(3, options)) {
                report = FailoverReport.run(fleet, LIMIT, () -> {
                    master.kill();
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                            .until(() -> cluster.isHealthyMaster(replica));
                });
            }
            report.print("Redis Cluster");
            report.assertAccountedFor();
            assertThat(report.recovery()).as("time until the fleet admits again").isLessThan(RECOVERY_BOUND);
            assertThat(report.excess().microsAboveLimit()).as("µs above the limit")
                    .isLessThanOrEqualTo(LEASE_MILLIS * 1000);
            assertThat(cluster.masterOf(slot, replica)).as("the replica took the slot over").isSameAs(replica);

            RedisClusterClient client = RedisClusterClient.create(RedisURI.create(replica.uri()));
            client.setOptions(RedisBulkhead.clusterClientOptions());
            try {
                await().atMost(Duration.ofMillis(LEASE_MILLIS + 5_000)).untilAsserted(() -> {
                    try (RedisBulkhead probe = RedisBulkhead.builder(client, name).build()) {
                        assertThat(probe.executingCount()).isZero();
                        assertThat(probe.queuedCount()).isZero();
                    }
                    long holders = cluster.run(replica, c -> c.zcard("bulwark:{" + name + "}:holders"));
                    long queued = cluster.run(replica, c -> c.zcard("bulwark:{" + name + "}:queue"));
                    assertThat(holders).isZero();
                    assertThat(queued).isZero();
                });
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }
}
