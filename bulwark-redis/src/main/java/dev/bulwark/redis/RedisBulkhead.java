package dev.bulwark.redis;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Subscription;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import dev.bulwark.redis.internal.ClusterBulkhead;
import dev.bulwark.redis.internal.ClusterLimits;
import dev.bulwark.redis.internal.Settings;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A cluster-wide {@link Bulkhead}: at most {@code maxConcurrency} calls hold a permit at once across every
 * instance (every process, every machine) that builds a {@code RedisBulkhead} with the same name against the same
 * Redis. Waiters from all instances share one queue, served in arrival order.
 *
 * <p>It keeps the semantics of the in-process bulkhead ({@link Bulkhead#builder()}): admission without barging,
 * FIFO hand-off of a released permit to the head waiter, refusal with {@link Rejection.Reason#QUEUE_FULL} or
 * {@link Rejection.Reason#WAIT_TIMEOUT}, cancellation by signal, interruption or cancelled future, the operation's
 * own exceptions passed through untouched, and release exactly once. What differs, because the state lives in
 * Redis:
 * <ul>
 *   <li><b>Cost.</b> An uncontended call makes one round trip to acquire (an {@code EVALSHA}) and one to release,
 *       which it does not wait for.</li>
 *   <li><b>Leases.</b> Every permit and waiter has a lease, renewed by a heartbeat; a crashed instance's permits
 *       and queue places come back within one lease. A holder whose lease was lost is told through
 *       {@link RedisBulkheadListener#permitLost}; the cluster no longer counts its permit, and its later close
 *       frees nothing.</li>
 *   <li><b>Failures.</b> When Redis cannot decide (unreachable, too slow, or it lost a waiter's place), the
 *       {@link FailureMode} decides: refuse with {@link Rejection.Reason#UNAVAILABLE} (the Redis failure is attached
 *       as the cause of the {@link dev.bulwark.BulkheadRejectedException}), or run without a permit.
 *       Commands are never queued while disconnected and replayed later.</li>
 *   <li><b>Limits</b> are stored in Redis and shared: {@link #changeMaxConcurrency}, {@link #changeMaxQueue} and
 *       {@link #changeMaxWait} change them for every instance (one round trip each). The builder's values only
 *       initialize them when Redis holds none yet (first use, or after Redis lost its data). {@link #maxConcurrency()}
 *       and the other getters return the values this instance last saw, which every script reply refreshes.</li>
 *   <li><b>Counts.</b> {@link #executingCount()} and {@link #queuedCount()} are cluster-wide and cost one round
 *       trip each; {@link #localExecutingCount()} and {@link #localQueuedCount()} are this instance's own and
 *       free.</li>
 *   <li><b>Rejections</b> with reason {@code QUEUE_FULL} carry the cluster-wide counts the script saw; those with
 *       reason {@code WAIT_TIMEOUT} or {@code UNAVAILABLE}, decided without a further round trip, carry this
 *       instance's counts. For an asynchronous call the overflow handler runs on the executor.</li>
 *   <li><b>Threads.</b> A sync caller parks while it waits; an async waiter holds no thread. Asynchronous operations
 *       start, and asynchronous outcomes are delivered, on the builder's executor (by default the common
 *       fork-join pool), never on a Redis I/O thread.</li>
 * </ul>
 *
 * <p>Each bulkhead opens two connections from the given client (commands, and pub/sub for grant wake-ups) and
 * closes them in {@link #close()}; the client itself stays the caller's. Thread-safe.
 */
public final class RedisBulkhead implements Bulkhead, AutoCloseable {

    private final ClusterBulkhead engine;
    private final FailureMode failureMode;
    private final Duration leaseDuration;

    private RedisBulkhead(ClusterBulkhead engine, FailureMode failureMode, Duration leaseDuration) {
        this.engine = engine;
        this.failureMode = failureMode;
        this.leaseDuration = leaseDuration;
    }

    /**
     * Starts configuring a cluster-wide bulkhead on a standalone (or Sentinel-managed) Redis.
     *
     * @param client the client to open connections from; its options must reject commands while disconnected
     *     and must not replay scripts after a reconnect (see {@link #clientOptions()})
     * @param name the bulkhead's name: every instance that uses the same name shares one limit and one queue. It
     *     becomes the hash tag of its keys, so it must not contain '{' or '}'
     * @return a new builder
     * @throws NullPointerException when an argument is {@code null}
     * @throws IllegalArgumentException when the name is blank or contains '{' or '}'
     */
    public static Builder builder(RedisClient client, String name) {
        return new Builder(Objects.requireNonNull(client, "client"), null, name);
    }

    /**
     * Starts configuring a cluster-wide bulkhead on Redis Cluster. All keys of one bulkhead share a hash tag, so
     * they live in one slot.
     *
     * @param client the cluster client; its options must be as described in {@link #builder(RedisClient, String)}
     *     (use {@link #clusterClientOptions()})
     * @param name the bulkhead's name; see {@link #builder(RedisClient, String)}
     * @return a new builder
     * @throws NullPointerException when an argument is {@code null}
     * @throws IllegalArgumentException when the name is blank or contains '{' or '}'
     */
    public static Builder builder(RedisClusterClient client, String name) {
        return new Builder(null, Objects.requireNonNull(client, "client"), name);
    }

    /**
     * Returns client options fit for a bulkhead: reconnect automatically, reject commands while disconnected, and
     * do not replay {@code EVAL}/{@code EVALSHA} commands that were in flight when the connection dropped (an
     * acquire replayed long after its caller gave up would take a slot for nobody). Derive your own with
     * {@link ClientOptions#mutate()}.
     *
     * @return the options
     */
    public static ClientOptions clientOptions() {
        return ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .replayFilter(RedisBulkhead::isScript)
                .build();
    }

    /**
     * Returns cluster client options fit for a bulkhead, as {@link #clientOptions()} does for a standalone client.
     * Use these rather than {@code ClusterClientOptions.builder(RedisBulkhead.clientOptions())}, which (in Lettuce
     * 7.7) does not copy the replay filter.
     *
     * @return the options
     */
    public static ClusterClientOptions clusterClientOptions() {
        // ClusterClientOptions.Builder does not override replayFilter; build() still makes cluster options.
        return (ClusterClientOptions) ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .replayFilter(RedisBulkhead::isScript)
                .build();
    }

    private static boolean isScript(io.lettuce.core.protocol.RedisCommand<?, ?, ?> command) {
        return command.getType() == CommandType.EVALSHA || command.getType() == CommandType.EVAL;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Calls

    /**
     * {@inheritDoc}
     *
     * <p>Makes one round trip to acquire before the operation runs (parking the calling thread meanwhile) and
     * sends the release without waiting for it.
     *
     * @throws dev.bulwark.BulkheadRejectedException also with reason {@code UNAVAILABLE} when Redis cannot decide
     *     and the bulkhead fails closed
     * @throws IllegalStateException when this bulkhead is closed
     */
    @Override
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        return engine.call(operation, signal);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A bulkhead that is closed completes the future with {@link IllegalStateException}.
     */
    @Override
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        return engine.callAsync(operation, signal);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The permit is held in Redis under a cluster-unique id and its lease is renewed until it is closed.
     *
     * @throws IllegalStateException when this bulkhead is closed
     */
    @Override
    public Permit acquire(CancellationSignal signal) {
        return engine.acquire(signal);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Makes one round trip (bounded by the command timeout). When Redis cannot decide it returns empty if the
     * bulkhead fails closed, and a permit without a slot if it fails open. Returns empty once closed.
     */
    @Override
    public Optional<Permit> tryAcquire() {
        return engine.tryAcquire();
    }

    /**
     * {@inheritDoc}
     *
     * <p>A bulkhead that is closed completes the future with {@link IllegalStateException}.
     */
    @Override
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        return engine.acquireAsync(signal);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Limits and counts

    /**
     * Attaches a core listener after construction; it is told of this instance's calls (admitted, rejected,
     * cancelled, released), like a listener given to the builder.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    @Override
    public Subscription addListener(BulkheadListener listener) {
        return engine.addListener(listener);
    }

    @Override
    public String name() {
        return engine.name();
    }

    /**
     * Returns the cluster-wide concurrency limit as this instance last saw it (every script reply refreshes it).
     * No round trip.
     *
     * @return at least 1
     */
    @Override
    public int maxConcurrency() {
        return engine.limits().maxConcurrency();
    }

    /**
     * Returns the cluster-wide queue limit as this instance last saw it. No round trip.
     *
     * @return at least 0
     */
    @Override
    public int maxQueue() {
        return engine.limits().maxQueue();
    }

    /**
     * Returns the cluster-wide maximum wait as this instance last saw it. No round trip. A waiter's wait is timed by
     * the clock of the instance it runs on.
     *
     * @return the maximum wait, or empty for no bound
     */
    @Override
    public Optional<Duration> maxWait() {
        ClusterLimits limits = engine.limits();
        return limits.maxWaitNanos() == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(limits.maxWaitNanos()));
    }

    /**
     * Returns how many permits are held across the whole cluster, after dropping expired leases. Costs one round
     * trip to Redis (a script that also hands freed slots to waiters), so it is not meant for a hot path; see
     * {@link #localExecutingCount()} for the free local figure.
     *
     * @return the cluster-wide number of permits held
     * @throws RedisBulkheadException when Redis does not answer within the command timeout
     */
    @Override
    public int executingCount() {
        return engine.clusterCounts("executingCount")[0];
    }

    /**
     * Returns how many calls wait across the whole cluster. Costs one round trip, like {@link #executingCount()}.
     *
     * @return the cluster-wide number of waiting calls
     * @throws RedisBulkheadException when Redis does not answer within the command timeout
     */
    @Override
    public int queuedCount() {
        return engine.clusterCounts("queuedCount")[1];
    }

    /**
     * Returns how many permits this instance holds in Redis (not yet closed, not lost). No round trip.
     *
     * @return this instance's share of {@link #executingCount()}
     */
    public int localExecutingCount() {
        return engine.localExecutingCount();
    }

    /**
     * Returns how many of this instance's calls wait in the cluster-wide queue (or are joining it). No round trip.
     *
     * @return this instance's share of {@link #queuedCount()}
     */
    public int localQueuedCount() {
        return engine.localQueuedCount();
    }

    /**
     * Changes the concurrency limit for the whole cluster: one round trip, bounded by the command timeout. Raising
     * it grants waiters at once, in arrival order; lowering it lets running calls finish and admits nobody until
     * fewer than the new limit hold permits.
     *
     * @throws IllegalArgumentException when {@code maxConcurrency} is less than 1
     * @throws RedisBulkheadException when Redis does not answer within the command timeout; the change may or may
     *     not have been made
     */
    @Override
    public void changeMaxConcurrency(int maxConcurrency) {
        engine.configure("changeMaxConcurrency", "maxConcurrency",
                Integer.toString(Builder.requireMaxConcurrency(maxConcurrency)));
    }

    /**
     * Changes the queue limit for the whole cluster: one round trip. Never drops a queued call.
     *
     * @throws IllegalArgumentException when {@code maxQueue} is negative
     * @throws RedisBulkheadException when Redis does not answer within the command timeout
     */
    @Override
    public void changeMaxQueue(int maxQueue) {
        engine.configure("changeMaxQueue", "maxQueue", Integer.toString(Builder.requireMaxQueue(maxQueue)));
    }

    /**
     * Changes the maximum wait for the whole cluster: one round trip. Calls already queued keep theirs; calls that
     * join afterwards, on any instance, use the new one.
     *
     * @throws IllegalArgumentException when {@code maxWait} is zero or negative
     * @throws RedisBulkheadException when Redis does not answer within the command timeout
     */
    @Override
    public void changeMaxWait(Duration maxWait) {
        engine.configure("changeMaxWait", "maxWaitNanos",
                Long.toString(maxWait == null ? 0L : Builder.maxWaitNanos(maxWait)));
    }

    /**
     * Returns what this bulkhead does when Redis cannot decide.
     *
     * @return the failure mode
     */
    public FailureMode failureMode() {
        return failureMode;
    }

    /**
     * Returns how long a permit or a waiter stays valid in Redis without renewal.
     *
     * @return the lease duration
     */
    public Duration leaseDuration() {
        return leaseDuration;
    }

    /**
     * Stops this instance: waiting calls end with a {@link java.util.concurrent.CancellationException} and leave the
     * queue, heartbeats stop, and both connections close (after up to one command timeout for pending releases).
     * Permits still held are no longer renewed and come back to the cluster within one lease. Afterwards calls fail
     * with {@link IllegalStateException} and {@link #tryAcquire()} returns empty. Idempotent.
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return engine.toString();
    }

    /**
     * Configures a {@link RedisBulkhead}. Not thread-safe: configure on one thread, then {@link #build()}. Each
     * setter checks its argument at once and names it in the exception.
     */
    public static final class Builder {

        private static final long UNBOUNDED_NANOS = 1L << 62;

        private final RedisClient client;
        private final RedisClusterClient clusterClient;
        private final String name;
        private int maxConcurrency = 10;
        private int maxQueue;
        private Duration maxWait;
        private Consumer<? super Rejection> rejectionHandler;
        private final List<BulkheadListener> listeners = new ArrayList<>();
        private final List<RedisBulkheadListener> redisListeners = new ArrayList<>();
        private Duration leaseDuration = Duration.ofSeconds(10);
        private Duration heartbeatInterval = Duration.ofSeconds(3);
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration commandTimeout = Duration.ofSeconds(1);
        private FailureMode failureMode = FailureMode.FAIL_CLOSED;
        private Ticker ticker = Ticker.system();
        private Scheduler scheduler = Scheduler.shared();
        private Executor executor = ForkJoinPool.commonPool();

        private Builder(RedisClient client, RedisClusterClient clusterClient, String name) {
            Objects.requireNonNull(name, "name");
            if (name.isBlank() || name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
                throw new IllegalArgumentException(
                        "name must be non-blank and contain neither '{' nor '}' but was '" + name + "'");
            }
            this.client = client;
            this.clusterClient = clusterClient;
            this.name = name;
        }

        /**
         * Sets the cluster-wide concurrency limit used when Redis holds none yet. Default: 10.
         *
         * @param maxConcurrency at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code maxConcurrency} is less than 1
         */
        public Builder maxConcurrency(int maxConcurrency) {
            this.maxConcurrency = requireMaxConcurrency(maxConcurrency);
            return this;
        }

        /**
         * Sets the cluster-wide queue limit used when Redis holds none yet. Default: 0 (refuse at once when no
         * permit is free).
         *
         * @param maxQueue at least 0
         * @return this builder
         * @throws IllegalArgumentException when {@code maxQueue} is negative
         */
        public Builder maxQueue(int maxQueue) {
            this.maxQueue = requireMaxQueue(maxQueue);
            return this;
        }

        /**
         * Sets the cluster-wide maximum wait used when Redis holds none yet. Default: no bound.
         *
         * @param maxWait a positive duration
         * @return this builder
         * @throws NullPointerException when {@code maxWait} is {@code null}
         * @throws IllegalArgumentException when {@code maxWait} is zero or negative
         */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = requirePositive(Objects.requireNonNull(maxWait, "maxWait"), "maxWait");
            return this;
        }

        /**
         * Sets the overflow handler, called with every {@link Rejection} before the refusal is thrown (or completes
         * an asynchronous call's future), on the refused caller's thread or, for an asynchronous call, on the
         * executor. Never called for cancellations.
         *
         * @param handler the handler
         * @return this builder
         * @throws NullPointerException when {@code handler} is {@code null}
         */
        public Builder onRejected(Consumer<? super Rejection> handler) {
            this.rejectionHandler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Adds a core listener (admitted, rejected, cancelled, released), called for this instance's calls.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException when {@code listener} is {@code null}
         */
        public Builder listener(BulkheadListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Adds a listener for lost permits and calls run without a permit.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException when {@code listener} is {@code null}
         */
        public Builder redisListener(RedisBulkheadListener listener) {
            redisListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Sets how long a permit or a waiter stays valid in Redis without a renewal: the longest a crashed
         * instance's permits and queue places stay taken. Default: 10 seconds. Must be longer than the heartbeat
         * interval and the command timeout; a lease of three heartbeats or more survives a missed heartbeat.
         *
         * @param leaseDuration a positive duration, at least one millisecond
         * @return this builder
         * @throws NullPointerException when {@code leaseDuration} is {@code null}
         * @throws IllegalArgumentException when it is shorter than one millisecond
         */
        public Builder leaseDuration(Duration leaseDuration) {
            Objects.requireNonNull(leaseDuration, "leaseDuration");
            if (leaseDuration.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("leaseDuration must be at least 1 ms but was " + leaseDuration);
            }
            this.leaseDuration = leaseDuration;
            return this;
        }

        /**
         * Sets how often this instance renews the leases of its permits and waiters (one script call for all of
         * them). Default: 3 seconds.
         *
         * @param heartbeatInterval a positive duration, shorter than the lease
         * @return this builder
         * @throws NullPointerException when {@code heartbeatInterval} is {@code null}
         * @throws IllegalArgumentException when it is zero or negative
         */
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = requirePositive(
                    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval"), "heartbeatInterval");
            return this;
        }

        /**
         * Sets how often waiting calls ask Redis whether they were granted: the safety net behind pub/sub wake-ups,
         * which may be lost while the connection is down. Default: 1 second.
         *
         * @param pollInterval a positive duration
         * @return this builder
         * @throws NullPointerException when {@code pollInterval} is {@code null}
         * @throws IllegalArgumentException when it is zero or negative
         */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = requirePositive(Objects.requireNonNull(pollInterval, "pollInterval"), "pollInterval");
            return this;
        }

        /**
         * Sets how long to wait for any reply from Redis before treating it as unavailable. Default: 1 second.
         *
         * @param commandTimeout a positive duration, shorter than the lease
         * @return this builder
         * @throws NullPointerException when {@code commandTimeout} is {@code null}
         * @throws IllegalArgumentException when it is zero or negative
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = requirePositive(
                    Objects.requireNonNull(commandTimeout, "commandTimeout"), "commandTimeout");
            return this;
        }

        /**
         * Sets what to do when Redis cannot decide. Default: {@link FailureMode#FAIL_CLOSED}.
         *
         * @param failureMode the failure mode
         * @return this builder
         * @throws NullPointerException when {@code failureMode} is {@code null}
         */
        public Builder failureMode(FailureMode failureMode) {
            this.failureMode = Objects.requireNonNull(failureMode, "failureMode");
            return this;
        }

        /**
         * Sets the local clock used to time waits (for tests). Leases never use it: they use the server's
         * {@code TIME}. Default: {@link Ticker#system()}.
         *
         * @param ticker the ticker
         * @return this builder
         * @throws NullPointerException when {@code ticker} is {@code null}
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Sets the scheduler for maximum waits, command timeouts, heartbeats and polls. Default:
         * {@link Scheduler#shared()}.
         *
         * @param scheduler the scheduler
         * @return this builder
         * @throws NullPointerException when {@code scheduler} is {@code null}
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Sets where asynchronous operations start and asynchronous outcomes (futures, overflow handler, listeners
         * of async calls) are delivered. Default: {@link ForkJoinPool#commonPool()}.
         *
         * @param executor the executor
         * @return this builder
         * @throws NullPointerException when {@code executor} is {@code null}
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Connects and starts the bulkhead: opens a command connection and a pub/sub connection, subscribes to
         * grant wake-ups, loads the scripts and reads the cluster-wide limits (writing this builder's values when
         * Redis holds none).
         *
         * @return a new bulkhead
         * @throws IllegalArgumentException when the heartbeat interval or the command timeout is not shorter than
         *     the lease, or the client's options would queue or replay commands (see {@link #clientOptions()})
         * @throws RedisBulkheadException when Redis cannot be reached
         */
        public RedisBulkhead build() {
            if (heartbeatInterval.compareTo(leaseDuration) >= 0) {
                throw new IllegalArgumentException("heartbeatInterval must be shorter than leaseDuration but was "
                        + heartbeatInterval + " with a lease of " + leaseDuration);
            }
            if (commandTimeout.compareTo(leaseDuration) >= 0) {
                throw new IllegalArgumentException("commandTimeout must be shorter than leaseDuration but was "
                        + commandTimeout + " with a lease of " + leaseDuration);
            }
            checkOptions(client != null ? client.getOptions() : clusterClient.getOptions());
            Settings settings = new Settings(name, new ClusterLimits(maxConcurrency, maxQueue,
                    maxWait == null ? 0L : maxWaitNanos(maxWait)), leaseDuration, heartbeatInterval, pollInterval,
                    commandTimeout, failureMode, rejectionHandler, listeners, redisListeners, ticker, scheduler,
                    executor);
            return client != null ? connect(settings, client) : connect(settings, clusterClient);
        }

        private RedisBulkhead connect(Settings settings, RedisClient standalone) {
            StatefulRedisConnection<String, String> commands = null;
            StatefulRedisPubSubConnection<String, String> pubSub = null;
            try {
                commands = standalone.connect();
                pubSub = standalone.connectPubSub();
                return start(settings, commands.async(), pubSub, closer(commands, pubSub));
            } catch (RuntimeException failure) {
                closeQuietly(commands, pubSub);
                throw connectFailure(failure);
            }
        }

        private RedisBulkhead connect(Settings settings, RedisClusterClient cluster) {
            StatefulRedisClusterConnection<String, String> commands = null;
            StatefulRedisPubSubConnection<String, String> pubSub = null;
            try {
                commands = cluster.connect();
                pubSub = cluster.connectPubSub();
                return start(settings, commands.async(), pubSub, closer(commands, pubSub));
            } catch (RuntimeException failure) {
                closeQuietly(commands, pubSub);
                throw connectFailure(failure);
            }
        }

        private RedisBulkhead start(Settings settings,
                                    io.lettuce.core.api.async.RedisScriptingAsyncCommands<String, String> commands,
                                    StatefulRedisPubSubConnection<String, String> pubSub, AutoCloseable closer) {
            return new RedisBulkhead(new ClusterBulkhead(settings, commands, pubSub, closer), failureMode,
                    leaseDuration);
        }

        private static AutoCloseable closer(io.lettuce.core.api.StatefulConnection<?, ?> commands,
                                            io.lettuce.core.api.StatefulConnection<?, ?> pubSub) {
            return () -> closeQuietly(commands, pubSub);
        }

        private static void closeQuietly(io.lettuce.core.api.StatefulConnection<?, ?>... connections) {
            for (io.lettuce.core.api.StatefulConnection<?, ?> connection : connections) {
                if (connection != null) {
                    try {
                        connection.close();
                    } catch (RuntimeException ignored) {
                        // Closing is best effort; the connection is unusable either way.
                    }
                }
            }
        }

        private RuntimeException connectFailure(RuntimeException failure) {
            return failure instanceof RedisBulkheadException ? failure
                    : new RedisBulkheadException(name, "connect", failure);
        }

        private static void checkOptions(ClientOptions options) {
            if (!options.isRejectCommandsWhileDisconnected()) {
                throw new IllegalArgumentException("client options must reject commands while disconnected "
                        + "(disconnectedBehavior REJECT_COMMANDS) so that no acquire is queued and sent long after "
                        + "its caller gave up; use RedisBulkhead.clientOptions() but was "
                        + options.getDisconnectedBehavior() + " with autoReconnect " + options.isAutoReconnect());
            }
            if (options.isAutoReconnect() && !options.getReplayFilter().test(
                    new Command<>(CommandType.EVALSHA, new StatusOutput<>(StringCodec.UTF8)))) {
                throw new IllegalArgumentException("client options must not replay EVALSHA commands after a "
                        + "reconnect (replayFilter), so that an acquire in flight when the connection dropped is "
                        + "not executed again for nobody; use RedisBulkhead.clientOptions()");
            }
        }

        static int requireMaxConcurrency(int maxConcurrency) {
            if (maxConcurrency < 1) {
                throw new IllegalArgumentException("maxConcurrency must be at least 1 but was " + maxConcurrency);
            }
            return maxConcurrency;
        }

        static int requireMaxQueue(int maxQueue) {
            if (maxQueue < 0) {
                throw new IllegalArgumentException("maxQueue must not be negative but was " + maxQueue);
            }
            return maxQueue;
        }

        private static Duration requirePositive(Duration value, String parameter) {
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(parameter + " must be positive but was " + value);
            }
            return value;
        }

        /** Nanoseconds of a positive maximum wait; 0 ("no bound") when it is so long it could overflow. */
        static long maxWaitNanos(Duration maxWait) {
            requirePositive(maxWait, "maxWait");
            if (maxWait.getSeconds() >= UNBOUNDED_NANOS / 1_000_000_000L) {
                return 0L;
            }
            long nanos = maxWait.toNanos();
            return nanos >= UNBOUNDED_NANOS ? 0L : nanos;
        }
    }
}
