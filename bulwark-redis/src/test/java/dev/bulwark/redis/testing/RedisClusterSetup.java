package dev.bulwark.redis.testing;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster on loopback: three masters with one replica each, six {@code redis-server} processes started
 * by the test and joined by {@code redis-cli --cluster create ... --cluster-replicas 1 --cluster-yes}. A node is
 * declared failed after {@code nodeTimeoutMillis} without an answer, and its replica then takes over its slots.
 * Each node gets its own free cluster bus port ({@code --cluster-port}), since port + 10000 may be taken or out of
 * range.
 */
public final class RedisClusterSetup implements AutoCloseable {

    private final List<RedisServer> nodes = new ArrayList<>();
    private final RedisClient inspector = RedisClient.create();

    private RedisClusterSetup() {
    }

    /** Starts six nodes, creates the cluster and waits until every node sees it healthy with six members. */
    public static RedisClusterSetup start(long nodeTimeoutMillis) {
        RedisClusterSetup setup = new RedisClusterSetup();
        try {
            for (int i = 0; i < 6; i++) {
                setup.nodes.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", Long.toString(nodeTimeoutMillis),
                        "--cluster-port", Integer.toString(freePort())));
            }
            List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            setup.nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
            command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(create.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!create.waitFor(60, TimeUnit.SECONDS) || create.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + output);
            }
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() ->
                    setup.nodes.stream().allMatch(node -> setup.run(node, c -> c.clusterInfo())
                            .contains("cluster_state:ok") && setup.clusterNodes(node).size() == 6));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() ->
                    setup.nodes.stream().filter(node -> setup.run(node, c -> c.info("replication"))
                            .contains("role:slave")).allMatch(node -> setup.run(node, c -> c.info("replication"))
                            .contains("master_link_status:up")));
            return setup;
        } catch (IOException e) {
            setup.close();
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            setup.close();
            throw new IllegalStateException(e);
        } catch (RuntimeException | AssertionError failure) {
            setup.close();
            throw failure;
        }
    }

    /** Comma-separated node URIs for {@link FleetWorker}'s {@code cluster} mode. */
    public String workerTarget() {
        return nodes.stream().map(RedisServer::uri).collect(Collectors.joining(","));
    }

    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The node serving {@code slot} as master, as {@code asSeenBy} sees the cluster. */
    public RedisServer masterOf(int slot, RedisServer asSeenBy) {
        for (String[] node : clusterNodes(asSeenBy)) {
            if (node[2].contains("master") && !node[2].contains("fail") && servesSlot(node, slot)) {
                return byAddress(node[1]);
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    /** The replica of {@code master}. */
    public RedisServer replicaOf(RedisServer master) {
        String masterId = run(master, c -> c.clusterMyId());
        for (String[] node : clusterNodes(master)) {
            if (node[3].equals(masterId)) {
                return byAddress(node[1]);
            }
        }
        throw new IllegalStateException("no replica of " + master.uri());
    }

    /** The hash slot of {@code key}. */
    public int slotOf(String key) {
        return run(nodes.get(0), c -> c.clusterKeyslot(key)).intValue();
    }

    /** Whether {@code node} is a master and sees the cluster healthy. */
    public boolean isHealthyMaster(RedisServer node) {
        return run(node, c -> c.info("replication")).contains("role:master")
                && run(node, c -> c.clusterInfo()).contains("cluster_state:ok");
    }

    /** Runs {@code command} on a short-lived connection to {@code node}. */
    public <T> T run(RedisServer node,
            java.util.function.Function<io.lettuce.core.api.sync.RedisCommands<String, String>, T> command) {
        try (StatefulRedisConnection<String, String> connection = inspector.connect(RedisURI.create(node.uri()))) {
            return command.apply(connection.sync());
        }
    }

    private List<String[]> clusterNodes(RedisServer node) {
        List<String[]> lines = new ArrayList<>();
        for (String line : run(node, c -> c.clusterNodes()).split("\n")) {
            if (!line.isBlank()) {
                lines.add(line.trim().split(" "));
            }
        }
        return lines;
    }

    private static boolean servesSlot(String[] node, int slot) {
        for (int i = 8; i < node.length; i++) {
            if (node[i].startsWith("[")) {
                continue;
            }
            String[] range = node[i].split("-");
            int from = Integer.parseInt(range[0]);
            int to = range.length == 1 ? from : Integer.parseInt(range[1]);
            if (slot >= from && slot <= to) {
                return true;
            }
        }
        return false;
    }

    private RedisServer byAddress(String address) {
        int port = Integer.parseInt(address.substring(address.indexOf(':') + 1, address.indexOf('@')));
        return nodes.stream().filter(n -> n.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown node " + address));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (RedisServer node : nodes) {
            node.close();
        }
        inspector.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
