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
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Redis server plus the clients the tests make against it. Each {@link #newClient()} is a separate
 * {@link RedisClient} (its own connections, as a separate instance of a service would have); they share one
 * {@link ClientResources} so that the test JVM does not start an event loop per client.
 *
 * <p>A test class gets one as a JUnit extension, which starts the server and closes everything:
 * <pre>{@code
 * @RegisterExtension
 * static final RedisFixture redis = RedisFixture.perClass();   // one server for the class's tests
 *
 * @RegisterExtension
 * final RedisFixture redis = RedisFixture.perTest();           // a server of its own for each test
 * }</pre>
 * A test that needs a further server of its own makes one with {@code new RedisFixture(RedisServer.start())} in a
 * try-with-resources block.
 */
public final class RedisFixture
        implements AutoCloseable, BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /**
     * A command timeout well above any stall of a loaded test machine, for tests about the protocol rather than
     * about timeouts (the fail-fast tests set their own): the 1 s default refused calls UNAVAILABLE once in CI.
     */
    public static final Duration PATIENT = Duration.ofSeconds(5);

    /** Which JUnit callbacks start and close the server; {@code null} when the creator manages it. */
    private enum Lifecycle { PER_CLASS, PER_TEST }

    private final Lifecycle lifecycle;
    private RedisServer server;
    private final ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2)
            .computationThreadPoolSize(2).build();
    private final List<RedisClient> clients = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private RedisClient inspectorClient;
    private StatefulRedisConnection<String, String> inspector;

    /** A fixture on a server the caller started; closing it stops the server. */
    public RedisFixture(RedisServer server) {
        this.lifecycle = null;
        this.server = server;
    }

    private RedisFixture(Lifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    /** For a {@code static} {@code @RegisterExtension} field: one server, started before the class's first test. */
    public static RedisFixture perClass() {
        return new RedisFixture(Lifecycle.PER_CLASS);
    }

    /**
     * For an instance {@code @RegisterExtension} field: JUnit makes a test instance per test, so each test gets a
     * server of its own, started before it and closed after it.
     */
    public static RedisFixture perTest() {
        return new RedisFixture(Lifecycle.PER_TEST);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (lifecycle == Lifecycle.PER_CLASS) {
            start();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (lifecycle == Lifecycle.PER_CLASS) {
            close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (lifecycle == Lifecycle.PER_TEST) {
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (lifecycle == Lifecycle.PER_TEST) {
            close();
        }
    }

    private synchronized void start() {
        if (server != null) {
            throw new IllegalStateException("this fixture's server is already started: register it once");
        }
        server = RedisServer.start();
    }

    public synchronized RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("no server yet: register the fixture with @RegisterExtension");
        }
        return server;
    }

    public synchronized RedisClient newClient() {
        RedisClient client = RedisClient.create(resources, RedisURI.create(server().uri()));
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
            inspectorClient = RedisClient.create(resources, RedisURI.create(server().uri()));
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
        if (server != null) {
            server.close();
        }
    }
}
