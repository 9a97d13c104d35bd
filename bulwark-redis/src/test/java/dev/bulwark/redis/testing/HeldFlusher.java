package dev.bulwark.redis.testing;

import dev.bulwark.redis.RedisBulkhead;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A client whose Lettuce event executors (where a {@code RedisBulkhead} flushes the releases that no script of its
 * own carried) can be held busy: while held, every release waits for the instance's next script to carry it, so
 * the tests can count exactly what rides on what. Track it in the {@link RedisFixture} before the bulkheads that
 * use its client, so that they close first.
 */
public final class HeldFlusher implements AutoCloseable {

    private final DefaultEventExecutorGroup executors = new DefaultEventExecutorGroup(1);
    private final ClientResources resources = DefaultClientResources.builder().ioThreadPoolSize(2)
            .eventExecutorGroup(executors).build();
    private final RedisClient client;
    private volatile CountDownLatch held = new CountDownLatch(0);

    public HeldFlusher(RedisServer server) {
        client = RedisClient.create(resources, RedisURI.create(server.uri()));
        client.setOptions(RedisBulkhead.clientOptions());
    }

    public RedisClient client() {
        return client;
    }

    /** Occupies the only event executor until {@link #letGo()}; returns once it is occupied. */
    public void hold() throws InterruptedException {
        CountDownLatch hold = new CountDownLatch(1);
        CountDownLatch occupied = new CountDownLatch(1);
        held = hold;
        executors.execute(() -> {
            occupied.countDown();
            try {
                hold.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!occupied.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The event executor did not start the holding task");
        }
    }

    /** Lets the event executor run the flushes queued meanwhile. */
    public void letGo() {
        held.countDown();
    }

    @Override
    public void close() {
        letGo();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        executors.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }
}
