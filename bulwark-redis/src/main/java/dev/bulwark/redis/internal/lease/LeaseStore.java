package dev.bulwark.redis.internal.lease;

import dev.bulwark.internal.util.Stages;
import dev.bulwark.redis.internal.LuaScripts;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
    /**
     * The last renewal's command itself, not bounded by the timeout: {@link #renewalPending()} while Redis may still
     * run it. Written by the renewal chain only.
     */
    private volatile CompletableFuture<?> lastRenewal = CompletableFuture.completedFuture(null);

    LeaseStore(RedisScriptingAsyncCommands<String, String> commands, String bulkheadName) {
        this.commands = commands;
        // One hash tag, so that both keys live in one Redis Cluster slot.
        String hash = "bulwark:{" + bulkheadName + "}:leased";
        this.key = new String[] {hash, hash + ":expiries"};
    }

    /** The sorted set's key (the instances by expiry), for tests. */
    String expiriesKey() {
        return key[1];
    }

    /** The hash's key, for messages and tests. */
    String key() {
        return key[0];
    }

    /**
     * Renews (or, with {@code leaving}, ends) an instance's lease: see {@link LeaseScripts#RENEW}. The renewal period
     * ({@code periodMillis}) is how old the division the script serves may grow before a renewal recomputes it.
     *
     * @return {@code {grant, limit, live instances, sum of records}}
     */
    CompletableFuture<long[]> renew(String instanceId, int executing, int queued, int holding, long ttlMillis,
                                    long periodMillis, int initialLimit, boolean leaving, long timeoutNanos) {
        CompletableFuture<List<Object>> command = send(LeaseScripts.RENEW, instanceId,
                Integer.toString(executing + queued), Integer.toString(holding), Long.toString(ttlMillis),
                Integer.toString(initialLimit), leaving ? "1" : "0", Integer.toString(executing),
                Long.toString(periodMillis));
        lastRenewal = command;
        return bounded(command, timeoutNanos);
    }

    /**
     * Whether the last renewal may still run in Redis (its reply has not come, even if its caller stopped waiting):
     * the chain then sends no further renewal, so that two renewals of one instance never run out of order (an
     * {@code EVALSHA} answered {@code NOSCRIPT} is sent again as {@code EVAL}, after anything sent meanwhile), and an
     * older holding never overwrites a newer record.
     */
    boolean renewalPending() {
        return !lastRenewal.isDone();
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
        return bounded(send(script, arguments), timeoutNanos);
    }

    private CompletableFuture<List<Object>> send(LuaScripts.Script script, String... arguments) {
        try {
            return commands.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, key, arguments)
                    .toCompletableFuture()
                    .exceptionallyCompose(failure -> Stages.unwrap(failure) instanceof RedisNoScriptException
                            ? commands.<List<Object>>eval(script.source(), ScriptOutputType.MULTI, key, arguments)
                                    .toCompletableFuture()
                            : CompletableFuture.failedFuture(failure));
        } catch (RuntimeException refused) {
            // The client refuses a command at once while disconnected.
            return CompletableFuture.failedFuture(refused);
        }
    }

    /** A copy of the reply that fails with a TimeoutException when it does not come in time. */
    private static CompletableFuture<long[]> bounded(CompletableFuture<List<Object>> reply, long timeoutNanos) {
        return reply.thenApply(LeaseStore::longs).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private static long[] longs(List<Object> reply) {
        long[] values = new long[reply.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = ((Number) reply.get(i)).longValue();
        }
        return values;
    }
}
