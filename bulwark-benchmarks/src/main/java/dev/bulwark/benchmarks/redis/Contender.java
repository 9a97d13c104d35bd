package dev.bulwark.benchmarks.redis;

import dev.bulwark.redis.RedisBulkhead;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One way to cap concurrent calls through Redis, wrapped so that the comparison drives them all alike: a call
 * (acquire, run, release), taking a permit and keeping it (the holder that gets killed), and one try-and-give-back
 * (to see when a dead holder's permit returns). Each contender opens its own client, as one service instance
 * would; every thread of the comparison shares it. Thread-safe as the libraries are.
 */
abstract class Contender implements AutoCloseable {

    /** The contenders, with the lease each gives a permit when it has one. */
    enum Kind {
        /** A bare {@code PING}: the round trip any remote call pays, not a limiter. */
        PING("PING round trip (yardstick)"),
        /** A bare {@code EVALSHA} of {@code return 1}: the floor of any call that runs a Lua script, not a limiter. */
        TRIVIAL_SCRIPT("EVALSHA of 'return 1' (floor of one script)"),
        /** {@code RedisBulkhead.run}: acquire (one {@code EVALSHA}), run, release sent without waiting. */
        BULWARK("Bulwark RedisBulkhead"),
        /** Redisson {@code RSemaphore}: {@code acquire()}, run, {@code release()} (awaited). No lease. */
        REDISSON_SEMAPHORE("Redisson RSemaphore"),
        /** The same with {@code releaseAsync()}, not awaited, as Bulwark releases. */
        REDISSON_SEMAPHORE_ASYNC("Redisson RSemaphore, releaseAsync"),
        /** Redisson {@code RPermitExpirableSemaphore}: {@code acquire(10 s lease)}, run, {@code release(id)}. */
        REDISSON_EXPIRABLE("Redisson RPermitExpirableSemaphore"),
        /** The same with {@code releaseAsync(id)}. */
        REDISSON_EXPIRABLE_ASYNC("Redisson RPermitExpirableSemaphore, releaseAsync");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        boolean isLimiter() {
            return this != PING && this != TRIVIAL_SCRIPT;
        }
    }

    static final Duration LEASE = Duration.ofSeconds(10);

    static Contender open(Kind kind, String uri, String name, int permits) {
        return switch (kind) {
            case PING -> new Ping(uri, false);
            case TRIVIAL_SCRIPT -> new Ping(uri, true);
            case BULWARK -> new Bulwark(uri, name, permits);
            case REDISSON_SEMAPHORE, REDISSON_SEMAPHORE_ASYNC ->
                    new RedissonSemaphore(uri, name, permits, kind == Kind.REDISSON_SEMAPHORE_ASYNC);
            case REDISSON_EXPIRABLE, REDISSON_EXPIRABLE_ASYNC ->
                    new RedissonExpirable(uri, name, permits, kind == Kind.REDISSON_EXPIRABLE_ASYNC);
        };
    }

    /** Acquires, runs {@code operation}, releases. */
    abstract void call(Runnable operation) throws InterruptedException;

    /** Takes one permit and keeps it. */
    abstract void acquireAndKeep() throws InterruptedException;

    /** Whether a permit can be taken now; one taken is given back at once. */
    abstract boolean tryOnce();

    @Override
    public abstract void close();

    private static final class Ping extends Contender {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        /** The digest of {@code return 1}, or {@code null} for a bare PING. */
        private final String script;

        Ping(String uri, boolean script) {
            client = RedisClient.create(uri);
            connection = client.connect();
            this.script = script ? connection.sync().scriptLoad("return 1") : null;
        }

        @Override
        void call(Runnable operation) {
            if (script == null) {
                connection.sync().ping();
            } else {
                connection.sync().evalsha(script, ScriptOutputType.INTEGER);
            }
            operation.run();
        }

        @Override
        void acquireAndKeep() {
            throw new UnsupportedOperationException("PING holds nothing");
        }

        @Override
        boolean tryOnce() {
            return true;
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static final class Bulwark extends Contender {
        private final RedisClient client;
        private final RedisBulkhead bulkhead;

        Bulwark(String uri, String name, int permits) {
            client = RedisClient.create(uri);
            client.setOptions(RedisBulkhead.clientOptions());
            bulkhead = RedisBulkhead.builder(client, name).maxConcurrency(permits).maxQueue(1024)
                    .leaseDuration(LEASE).build();
        }

        @Override
        void call(Runnable operation) {
            bulkhead.run(operation::run);
        }

        @Override
        void acquireAndKeep() {
            bulkhead.acquire();
        }

        @Override
        boolean tryOnce() {
            return bulkhead.tryAcquire().map(permit -> {
                permit.close();
                return true;
            }).orElse(false);
        }

        @Override
        public void close() {
            bulkhead.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static RedissonClient redisson(String uri) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(4).setConnectionPoolSize(64)
                .setSubscriptionConnectionMinimumIdleSize(1);
        return Redisson.create(config);
    }

    private static final class RedissonSemaphore extends Contender {
        private final RedissonClient redisson;
        private final RSemaphore semaphore;
        private final boolean asyncRelease;

        RedissonSemaphore(String uri, String name, int permits, boolean asyncRelease) {
            redisson = redisson(uri);
            semaphore = redisson.getSemaphore(name);
            semaphore.trySetPermits(permits);
            this.asyncRelease = asyncRelease;
        }

        @Override
        void call(Runnable operation) throws InterruptedException {
            semaphore.acquire();
            try {
                operation.run();
            } finally {
                if (asyncRelease) {
                    semaphore.releaseAsync();
                } else {
                    semaphore.release();
                }
            }
        }

        @Override
        void acquireAndKeep() throws InterruptedException {
            semaphore.acquire();
        }

        @Override
        boolean tryOnce() {
            if (semaphore.tryAcquire()) {
                semaphore.release();
                return true;
            }
            return false;
        }

        @Override
        public void close() {
            redisson.shutdown();
        }
    }

    private static final class RedissonExpirable extends Contender {
        private final RedissonClient redisson;
        private final RPermitExpirableSemaphore semaphore;
        private final boolean asyncRelease;

        RedissonExpirable(String uri, String name, int permits, boolean asyncRelease) {
            redisson = redisson(uri);
            semaphore = redisson.getPermitExpirableSemaphore(name);
            semaphore.trySetPermits(permits);
            this.asyncRelease = asyncRelease;
        }

        @Override
        void call(Runnable operation) throws InterruptedException {
            String id = semaphore.acquire(LEASE.toMillis(), TimeUnit.MILLISECONDS);
            try {
                operation.run();
            } finally {
                if (asyncRelease) {
                    semaphore.releaseAsync(id);
                } else {
                    semaphore.release(id);
                }
            }
        }

        @Override
        void acquireAndKeep() throws InterruptedException {
            semaphore.acquire(LEASE.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        boolean tryOnce() {
            try {
                String id = semaphore.tryAcquire(0, LEASE.toMillis(), TimeUnit.MILLISECONDS);
                if (id != null) {
                    semaphore.release(id);
                    return true;
                }
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public void close() {
            redisson.shutdown();
        }
    }
}
