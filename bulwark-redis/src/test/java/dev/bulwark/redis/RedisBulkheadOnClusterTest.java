package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same protocol on Redis Cluster (one node that serves all 16384 slots): the scripts declare every key they
 * touch and all of them share the bulkhead's hash tag, so Cluster accepts them (it refuses cross-slot scripts).
 */
class RedisBulkheadOnClusterTest {

    private static RedisServer server;
    private static RedisClusterClient first;
    private static RedisClusterClient second;

    @BeforeAll
    static void startCluster() {
        server = RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf");
        RedisClient setup = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = setup.connect()) {
            connection.sync().clusterAddSlots(IntStream.range(0, 16384).toArray());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> connection.sync().clusterInfo().contains("cluster_state:ok"));
        } finally {
            setup.shutdown();
        }
        first = cluster();
        second = cluster();
    }

    private static RedisClusterClient cluster() {
        RedisClusterClient client = RedisClusterClient.create(server.uri());
        client.setOptions(RedisBulkhead.clusterClientOptions());
        return client;
    }

    @AfterAll
    static void stopCluster() {
        first.shutdown();
        second.shutdown();
        server.close();
    }

    @Test
    void clusterClientOptionsRefreshTheTopologyEverySecondAndOnAdaptiveTriggers() {
        // Without a periodic refresh a client kept sending to a dead primary's address after its replica took over
        // (a dead node answers no MOVED): measured 6.1 s until the fleet admitted again, 3.2 s with these options.
        ClusterClientOptions options = RedisBulkhead.clusterClientOptions();
        ClusterTopologyRefreshOptions refresh = options.getTopologyRefreshOptions();
        assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
        assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(1));
        assertThat(refresh.getAdaptiveRefreshTriggers()).containsExactlyInAnyOrder(
                ClusterTopologyRefreshOptions.RefreshTrigger.values());
        assertThat(refresh.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofMillis(500));
        // And what every bulkhead client needs: no replay of scripts, commands refused while disconnected.
        assertThat(options.isAutoReconnect()).isTrue();
        assertThat(options.getDisconnectedBehavior()).isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
        assertThat(options.getReplayFilter()).isNotSameAs(ClientOptions.DEFAULT_REPLAY_FILTER);
    }

    @Test
    void admitsQueuesHandsOffAndRefusesOnCluster() throws Exception {
        try (RedisBulkhead one = RedisBulkhead.builder(first, "on-cluster").maxConcurrency(1).maxQueue(1).build();
             RedisBulkhead two = RedisBulkhead.builder(second, "on-cluster").maxConcurrency(1).maxQueue(1).build()) {
            Permit held = one.acquire();
            CompletableFuture<String> queued = two.callAsync(() -> CompletableFuture.completedFuture("handed off"));
            await().untilAsserted(() -> assertThat(one.queuedCount()).isEqualTo(1));
            assertThatThrownBy(() -> one.call(() -> "never")).isInstanceOf(BulkheadRejectedException.class);

            held.close();

            assertThat(queued.get(20, TimeUnit.SECONDS)).isEqualTo("handed off");
            await().untilAsserted(() -> assertThat(two.executingCount()).isZero());
            assertThat(two.call(() -> 42)).isEqualTo(42);
        }
    }

    @Test
    void aLeasedBulkheadStartsWhileItsClientIsStillConnectingToTheNodeOfItsSlot() throws Exception {
        // A cluster connection opens its connection to the node serving a slot at the first command for that slot,
        // and with REJECT_COMMANDS refuses that command while it connects: the first renewal of a new instance. A
        // fresh client for each build, so that no earlier test has connected it. Before the start sent its first
        // renewal again, build() failed with "Currently not connected. Commands are rejected."
        for (int attempt = 0; attempt < 3; attempt++) {
            RedisClusterClient fresh = cluster();
            try (RedisBulkhead leased = RedisBulkhead.builder(fresh, "leased-on-cluster-" + attempt)
                    .maxConcurrency(4).leased(Duration.ofMillis(500)).build()) {
                assertThat(leased.call(() -> 42)).isEqualTo(42);
                assertThat(leased.maxConcurrency()).isEqualTo(4);
            } finally {
                fresh.shutdown();
            }
        }
    }
}
