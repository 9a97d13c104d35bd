package dev.bulwark.redis.internal.lease;

import dev.bulwark.redis.internal.LuaScripts;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The leased mode's one hash in Redis, reached through its scripts ({@link LeaseScripts}): sent by digest
 * ({@code EVALSHA}) and again with their source ({@code EVAL}) when the server answers {@code NOSCRIPT}. Every reply
 * is bounded by the timeout given; a late one fails the future with a {@link java.util.concurrent.TimeoutException}.
 * Thread-safe.
 */
final class LeaseStore {

    private final RedisScriptingAsyncCommands<String, String> commands;
    private final String[] key;

    LeaseStore(RedisScriptingAsyncCommands<String, String> commands, String bulkheadName) {
        this.commands = commands;
        this.key = new String[] {"bulwark:{" + bulkheadName + "}:leased"};
    }

    /** The hash's key, for messages and tests. */
    String key() {
        return key[0];
    }

    /**
     * Renews (or, with {@code leaving}, ends) an instance's lease: see {@link LeaseScripts#RENEW}.
     *
     * @return {@code {grant, limit, live instances, sum of records}}
     */
    CompletableFuture<long[]> renew(String instanceId, int executing, int queued, int holding, long ttlMillis,
                                    int initialLimit, boolean leaving, long timeoutNanos) {
        return run(LeaseScripts.RENEW, timeoutNanos, instanceId, Integer.toString(executing + queued),
                Integer.toString(holding), Long.toString(ttlMillis), Integer.toString(initialLimit),
                leaving ? "1" : "0", Integer.toString(executing));
    }

    /** {@code {limit, executing, queued, live instances}}: see {@link LeaseScripts#COUNTS}. */
    CompletableFuture<long[]> counts(long timeoutNanos) {
        return run(LeaseScripts.COUNTS, timeoutNanos);
    }

    /** Sets the fleet's limit. */
    CompletableFuture<long[]> setLimit(int limit, long timeoutNanos) {
        return run(LeaseScripts.SET_LIMIT, timeoutNanos, Integer.toString(limit));
    }

    private CompletableFuture<long[]> run(LuaScripts.Script script, long timeoutNanos, String... arguments) {
        CompletableFuture<List<Object>> reply;
        try {
            reply = commands.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, key, arguments)
                    .toCompletableFuture()
                    .exceptionallyCompose(failure -> unwrap(failure) instanceof RedisNoScriptException
                            ? commands.<List<Object>>eval(script.source(), ScriptOutputType.MULTI, key, arguments)
                                    .toCompletableFuture()
                            : CompletableFuture.failedFuture(failure));
        } catch (RuntimeException refused) {
            // The client refuses a command at once while disconnected.
            return CompletableFuture.failedFuture(refused);
        }
        return reply.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).thenApply(LeaseStore::longs);
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private static long[] longs(List<Object> reply) {
        long[] values = new long[reply.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = ((Number) reply.get(i)).longValue();
        }
        return values;
    }
}
