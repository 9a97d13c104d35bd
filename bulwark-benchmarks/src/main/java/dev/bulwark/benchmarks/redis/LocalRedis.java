package dev.bulwark.benchmarks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} on a free loopback port with persistence off, started for one comparison run (or an
 * existing server given by URI), and its {@code INFO commandstats} counters. Not thread-safe: the comparison reads
 * counters from its main thread only.
 */
final class LocalRedis implements AutoCloseable {

    private final Process process;
    private final String uri;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private LocalRedis(Process process, String uri) {
        this.process = process;
        this.uri = uri;
        this.client = RedisClient.create(uri);
        this.connection = connect(client);
    }

    /** Starts {@code redis-server} from the PATH on a free port. */
    static LocalRedis start() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path directory = Files.createTempDirectory("bulwark-redis-comparison-");
        Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", directory.toString(),
                "--logfile", directory.resolve("redis.log").toString()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("stdout.log").toFile()).start();
        return new LocalRedis(process, "redis://127.0.0.1:" + port);
    }

    /** Uses a server that is already running (it is not stopped at the end). */
    static LocalRedis existing(String uri) {
        return new LocalRedis(null, uri);
    }

    private static StatefulRedisConnection<String, String> connect(RedisClient client) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        for (;;) {
            try {
                return client.connect();
            } catch (RuntimeException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw notYet;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw notYet;
                }
            }
        }
    }

    String uri() {
        return uri;
    }

    RedisCommands<String, String> commands() {
        return connection.sync();
    }

    /**
     * Per command since the server started ({@code INFO commandstats}), without {@code info} itself: {calls,
     * microseconds of server time}. Commands that scripts run are counted too, under their own names.
     */
    Map<String, long[]> commandStats() {
        Map<String, long[]> stats = new TreeMap<>();
        for (String line : connection.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                if (!command.equals("info")) {
                    stats.put(command, new long[] {field(line, "calls="), field(line, "usec=")});
                }
            }
        }
        return stats;
    }

    private static long field(String line, String name) {
        int at = line.indexOf(name) + name.length();
        int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at, end < 0 ? line.length() : end));
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        if (process != null) {
            process.destroy();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
