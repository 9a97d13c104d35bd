package dev.bulwark.redis.testing;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A real Sentinel deployment on loopback: one master, one replica and three sentinels (quorum 2), each a
 * {@code redis-server} process started by the test. The sentinels declare the master down after
 * {@code downAfterMillis} without an answer and then promote the replica. Ready when the replica is in sync and
 * every sentinel knows the replica and the two other sentinels (so that an election can start at once).
 */
public final class RedisSentinelSetup implements AutoCloseable {

    /** The name the sentinels monitor the master under. */
    public static final String MASTER = "bulwark-master";

    private final RedisServer master;
    private final RedisServer replica;
    private final List<RedisServer> sentinels = new ArrayList<>();
    private final RedisClient inspector = RedisClient.create();

    private RedisSentinelSetup(long downAfterMillis, String... dataNodeArguments) {
        // No delay before the first (diskless) full sync: the replica is in sync at once.
        List<String> masterArguments = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
        masterArguments.addAll(List.of(dataNodeArguments));
        master = RedisServer.start(masterArguments.toArray(String[]::new));
        List<String> replicaArguments = new ArrayList<>(List.of(dataNodeArguments));
        replicaArguments.addAll(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
        replica = RedisServer.start(replicaArguments.toArray(String[]::new));
        for (int i = 0; i < 3; i++) {
            sentinels.add(RedisServer.startWithConfig(String.join("\n",
                    "sentinel monitor " + MASTER + " 127.0.0.1 " + master.port() + " 2",
                    "sentinel down-after-milliseconds " + MASTER + " " + downAfterMillis,
                    "sentinel failover-timeout " + MASTER + " 10000",
                    "sentinel parallel-syncs " + MASTER + " 1", ""), "--sentinel"));
        }
    }

    /**
     * Starts the deployment and waits until it can fail over.
     *
     * @param downAfterMillis the sentinels' {@code down-after-milliseconds}
     * @param dataNodeArguments extra arguments for the master and the replica (e.g. {@code --min-replicas-to-write})
     */
    public static RedisSentinelSetup start(long downAfterMillis, String... dataNodeArguments) {
        RedisSentinelSetup setup = new RedisSentinelSetup(downAfterMillis, dataNodeArguments);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> setup.info(setup.replica, "replication")
                    .contains("master_link_status:up"));
            for (RedisServer sentinel : setup.sentinels) {
                try (StatefulRedisSentinelConnection<String, String> connection = setup.inspector.connectSentinel(
                        RedisURI.create(sentinel.uri()))) {
                    await().atMost(Duration.ofSeconds(60)).until(() ->
                            "1".equals(connection.sync().master(MASTER).get("num-slaves"))
                                    && "2".equals(connection.sync().master(MASTER).get("num-other-sentinels")));
                }
            }
            return setup;
        } catch (RuntimeException | AssertionError failure) {
            setup.close();
            throw failure;
        }
    }

    public RedisServer master() {
        return master;
    }

    public RedisServer replica() {
        return replica;
    }

    /** {@code master@host:port,...} for {@link FleetWorker}'s {@code sentinel} mode. */
    public String workerTarget() {
        return MASTER + "@" + sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","));
    }

    /** The master's port as the first sentinel answers it now. */
    public int masterPortPerSentinel() {
        try (StatefulRedisSentinelConnection<String, String> connection = inspector.connectSentinel(
                RedisURI.create(sentinels.get(0).uri()))) {
            return ((InetSocketAddress) connection.sync().getMasterAddrByName(MASTER)).getPort();
        }
    }

    /** One {@code INFO} section of {@code server}. */
    public String info(RedisServer server, String section) {
        try (StatefulRedisConnection<String, String> connection = inspector.connect(RedisURI.create(server.uri()))) {
            return connection.sync().info(section);
        }
    }

    @Override
    public void close() {
        for (RedisServer sentinel : sentinels) {
            sentinel.close();
        }
        replica.close();
        master.close();
        inspector.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
