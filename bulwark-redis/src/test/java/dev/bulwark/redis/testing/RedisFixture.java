package dev.bulwark.redis.testing;

import dev.bulwark.redis.RedisBulkhead;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis server plus the clients the tests make against it. Each {@link #newClient()} is a separate
 * {@link RedisClient} (its own connections, as a separate instance of a service would have); they share one
 * {@link ClientResources} so that the test JVM does not start an event loop per client.
 */
public final class RedisFixture implements AutoCloseable {

    private final RedisServer server;
    private final ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2)
            .computationThreadPoolSize(2).build();
    private final List<RedisClient> clients = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private RedisClient inspectorClient;
    private StatefulRedisConnection<String, String> inspector;

    public RedisFixture(RedisServer server) {
        this.server = server;
    }

    public RedisServer server() {
        return server;
    }

    public synchronized RedisClient newClient() {
        RedisClient client = RedisClient.create(resources, RedisURI.create(server.uri()));
        client.setOptions(RedisBulkhead.clientOptions().mutate()
                .socketOptions(io.lettuce.core.SocketOptions.builder().connectTimeout(Duration.ofSeconds(1)).build())
                .build());
        clients.add(client);
        return client;
    }

    /** Closes {@code closeable} when the fixture closes, before the clients shut down. */
    public synchronized <T extends AutoCloseable> T track(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    /** A plain connection to look at the server's state (holder and queue counts). */
    public synchronized RedisCommands<String, String> inspect() {
        if (inspector == null || !inspector.isOpen()) {
            inspectorClient = RedisClient.create(resources, RedisURI.create(server.uri()));
            inspector = inspectorClient.connect();
        }
        return inspector.sync();
    }

    public long holdersOnServer(String bulkheadName) {
        return inspect().zcard("bulwark:{" + bulkheadName + "}:holders");
    }

    public long queuedOnServer(String bulkheadName) {
        return inspect().zcard("bulwark:{" + bulkheadName + "}:queue");
    }

    @Override
    public synchronized void close() {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception ignored) {
                // Best effort: the server goes away next anyway.
            }
        }
        if (inspector != null) {
            inspector.close();
            inspectorClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        for (RedisClient client : clients) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        resources.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
        server.close();
    }
}
