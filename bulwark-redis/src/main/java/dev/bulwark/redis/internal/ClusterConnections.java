package dev.bulwark.redis.internal;

import dev.bulwark.redis.RedisBulkheadException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The Lettuce wiring of a cluster-wide bulkhead: the client options it needs, their check, and opening the two
 * connections (commands, and pub/sub for grant wake-ups) from a standalone or a cluster client. A bulkhead that
 * cannot start closes whatever it opened. Stateless.
 *
 * <p>Why the options matter: a command queued while disconnected, or replayed after a reconnect, could run an
 * acquire long after its caller gave up and take a slot for nobody. So a bulkhead requires clients that reject
 * commands while disconnected and never replay scripts.
 */
public final class ClusterConnections {

    /** How often {@link #clusterClientOptions()} refreshes the cluster's topology. */
    public static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(1);
    /** The least time between two refreshes that adaptive triggers start. */
    public static final Duration ADAPTIVE_REFRESH_TIMEOUT = Duration.ofMillis(500);

    private ClusterConnections() {
    }

    /**
     * Client options fit for a bulkhead: reconnect, reject commands while disconnected, never replay scripts.
     *
     * @return new options
     */
    public static ClientOptions clientOptions() {
        return ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .replayFilter(ClusterConnections::isScript)
                .build();
    }

    /**
     * Cluster client options fit for a bulkhead, like {@link #clientOptions()}, plus a topology refresh every
     * {@link #TOPOLOGY_REFRESH_PERIOD} and on every adaptive trigger (at most one per
     * {@link #ADAPTIVE_REFRESH_TIMEOUT}): after a failover a dead primary answers no {@code MOVED}, so a client that
     * does not refresh keeps sending its scripts to the dead address until one of Lettuce's adaptive triggers (a run of
     * failed reconnects) fires; with the periodic refresh it learns the promoted replica within a second.
     *
     * @return new options
     */
    public static ClusterClientOptions clusterClientOptions() {
        // ClusterClientOptions.Builder does not override replayFilter; build() still makes cluster options. The
        // cluster-only settings therefore come first.
        return (ClusterClientOptions) ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_TIMEOUT)
                        .enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD)
                        .build())
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .replayFilter(ClusterConnections::isScript)
                .build();
    }

    private static boolean isScript(RedisCommand<?, ?, ?> command) {
        return command.getType() == CommandType.EVALSHA || command.getType() == CommandType.EVAL;
    }

    /**
     * Checks the client's options, opens the connections from a standalone (or Sentinel-managed) client and starts
     * the engine on them.
     *
     * @param settings the checked settings
     * @param client the caller's client, which stays the caller's
     * @return the started engine, owning both connections
     * @throws IllegalArgumentException when the client's options would queue or replay commands
     * @throws RedisBulkheadException when Redis cannot be reached
     */
    public static ClusterBulkhead start(ClusterSettings settings, RedisClient client) {
        checkOptions(client.getOptions());
        FirstUse.prepare();
        return start(settings, client::connect, connection -> connection.async(), client::connectPubSub);
    }

    /**
     * Checks the client's options, opens the connections from a Redis Cluster client and starts the engine on
     * them.
     *
     * @param settings the checked settings
     * @param client the caller's cluster client, which stays the caller's
     * @return the started engine, owning both connections
     * @throws IllegalArgumentException when the client's options would queue or replay commands
     * @throws RedisBulkheadException when Redis cannot be reached
     */
    public static ClusterBulkhead start(ClusterSettings settings, RedisClusterClient client) {
        checkOptions(client.getOptions());
        FirstUse.prepare();
        return start(settings, client::connect, connection -> connection.async(), client::connectPubSub);
    }

    private static <C extends StatefulConnection<String, String>> ClusterBulkhead start(
            ClusterSettings settings, Supplier<C> commandConnection,
            Function<C, ? extends RedisScriptingAsyncCommands<String, String>> async,
            Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnection) {
        C commands = null;
        StatefulRedisPubSubConnection<String, String> pubSub = null;
        try {
            commands = commandConnection.get();
            pubSub = pubSubConnection.get();
            // Releases are flushed on the command connection's own event loop (no thread of ours, no user code,
            // nothing that blocks; see ReleaseFlusher), given back with the connections.
            ReleaseFlusher flusher = settings.releaseFlusher() != null ? ReleaseFlusher.on(settings.releaseFlusher())
                    : ReleaseFlusher.onEventLoop(commands.getResources());
            ClusterBulkhead engine;
            try {
                engine = new ClusterBulkhead(settings, async.apply(commands), pubSub,
                        closer(commands, pubSub, flusher), flusher);
            } catch (RuntimeException failure) {
                flusher.close();
                throw failure;
            }
            watchDisconnects(commands, engine);
            return engine;
        } catch (RuntimeException failure) {
            closeQuietly(commands, pubSub);
            throw failure instanceof RedisBulkheadException ? failure
                    : new RedisBulkheadException(settings.name(), "connect", failure);
        }
    }

    /**
     * Refuses the engine's waiters as soon as the command connection drops, rather than at their next poll. A
     * standalone connection reports its own disconnects; a cluster connection's node connections report to the
     * client instead, so on Redis Cluster the failed poll (at most a quarter command timeout later) does it.
     */
    private static void watchDisconnects(StatefulConnection<String, String> commands, ClusterBulkhead engine) {
        if (commands instanceof RedisChannelHandler<?, ?> handler) {
            handler.addListener(new RedisConnectionStateListener() {
                @Override
                public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                    engine.connectionLost(new RedisConnectionException("Bulkhead '" + engine.name()
                            + "': the connection to Redis was lost"));
                }
            });
        }
    }

    private static AutoCloseable closer(StatefulConnection<?, ?> commands, StatefulConnection<?, ?> pubSub,
                                        ReleaseFlusher flusher) {
        return () -> {
            closeQuietly(commands, pubSub);
            flusher.close();
        };
    }

    private static void closeQuietly(StatefulConnection<?, ?>... connections) {
        for (StatefulConnection<?, ?> connection : connections) {
            if (connection != null) {
                try {
                    connection.close();
                } catch (RuntimeException ignored) {
                    // Closing is best effort; the connection is unusable either way.
                }
            }
        }
    }

    /**
     * Checks that a client's options neither queue commands while disconnected nor replay scripts after a
     * reconnect; the leased mode checks its client the same way.
     *
     * @param options the client's options
     * @throws IllegalArgumentException when they would
     */
    public static void checkOptions(ClientOptions options) {
        if (!options.isRejectCommandsWhileDisconnected()) {
            throw new IllegalArgumentException("client options must reject commands while disconnected "
                    + "(disconnectedBehavior REJECT_COMMANDS) so that no acquire is queued and sent long after "
                    + "its caller gave up; use RedisBulkhead.clientOptions() but was "
                    + options.getDisconnectedBehavior() + " with autoReconnect " + options.isAutoReconnect());
        }
        // Both: a script is sent by EVALSHA, and again by EVAL after a NOSCRIPT reply.
        for (CommandType script : new CommandType[] {CommandType.EVALSHA, CommandType.EVAL}) {
            if (options.isAutoReconnect() && !options.getReplayFilter().test(
                    new Command<>(script, new StatusOutput<>(StringCodec.UTF8)))) {
                throw new IllegalArgumentException("client options must not replay " + script + " commands after "
                        + "a reconnect (replayFilter), so that an acquire in flight when the connection dropped is "
                        + "not executed again for nobody; use RedisBulkhead.clientOptions()");
            }
        }
    }
}
