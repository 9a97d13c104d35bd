package dev.bulwark.redis.internal;

import dev.bulwark.Scheduler;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs the bulkhead's Lua scripts by digest ({@code EVALSHA}), and re-sends the source ({@code EVAL}, which also
 * caches it) when the server answers {@code NOSCRIPT} because its script cache was flushed or it restarted.
 * Every command is bounded by the command timeout: a reply that does not come in time fails the returned future
 * with a {@link TimeoutException}; the caller then treats the outcome as unknown, and the bulkhead is told (its
 * queued waiters cannot be granted while Redis is silent).
 *
 * <p>Thread-safe. Commands are written to one connection in call order, so a command sent after another one's
 * reply arrived is always executed after it on the server, and a release handed to {@link #release} is executed
 * before every script sent after that call ({@link ReleaseOutbox}, invariant 2). Two commands in flight at the same time may execute
 * out of order when the first is re-sent after {@code NOSCRIPT}; the protocol never relies on their order (see
 * {@link RemoteWaiter} for how a release is kept behind its acquire).
 */
final class ScriptRunner {

    private final RedisScriptingAsyncCommands<String, String> commands;
    private final BulkheadKeys keys;
    private final Supplier<ClusterLimits> defaults;
    private final Scheduler scheduler;
    private final long timeoutNanos;
    /** Told of every command that timed out (on the scheduler's thread): Redis is not answering. */
    private final Consumer<TimeoutException> timedOut;
    /** The releases nobody waits for, sent on their own or with the next script. */
    private final ReleaseOutbox outbox;

    ScriptRunner(RedisScriptingAsyncCommands<String, String> commands, BulkheadKeys keys,
                 Supplier<ClusterLimits> defaults, Scheduler scheduler, Executor releaseFlusher,
                 ReleaseOutbox.Outcomes released, long timeoutNanos, Consumer<TimeoutException> timedOut) {
        this.commands = commands;
        this.keys = keys;
        this.defaults = defaults;
        this.scheduler = scheduler;
        this.timeoutNanos = timeoutNanos;
        this.timedOut = timedOut;
        this.outbox = new ReleaseOutbox(releaseFlusher, this::send, released);
    }

    /**
     * Sends a script, after (or together with) every release handed to {@link #release} before this call. Never
     * throws: a command the client refuses (for example while disconnected) fails the returned future.
     *
     * @param script the script
     * @param arguments the script's own arguments, from {@code ARGV[5]} on
     * @return the reply, completed on a Redis I/O thread or the scheduler's thread
     */
    CompletableFuture<List<Object>> run(LuaScripts.Script script, String... arguments) {
        return outbox.run(script, arguments);
    }

    /**
     * Releases a closed permit without waiting: sent within one hand-off to the release flusher, or earlier with
     * the next script (see {@link ReleaseOutbox}); its outcome goes to the {@code released} callback.
     */
    void release(RemotePermit permit) {
        outbox.release(permit);
    }

    /** Sends every pending release now (before a shutdown's last command). */
    void flushReleases() {
        outbox.flush();
    }

    private CompletableFuture<List<Object>> send(LuaScripts.Script script, String[] arguments) {
        String[] argv = new String[4 + arguments.length];
        argv[0] = keys.channel();
        String[] limits = defaults.get().asArguments();
        System.arraycopy(limits, 0, argv, 1, 3);
        System.arraycopy(arguments, 0, argv, 4, arguments.length);
        CompletableFuture<List<Object>> reply;
        try {
            reply = this.<List<Object>>evalsha(script, argv).exceptionallyCompose(failure -> {
                if (unwrap(failure) instanceof RedisNoScriptException) {
                    return eval(script, argv);
                }
                return CompletableFuture.failedFuture(unwrap(failure));
            });
        } catch (RuntimeException refused) {
            return CompletableFuture.failedFuture(refused);
        }
        return withTimeout(reply, script);
    }

    /** Loads every script into the server's cache ahead of the first call; failures are harmless. */
    void preload() {
        for (LuaScripts.Script script : List.of(LuaScripts.ACQUIRE, LuaScripts.RELEASE, LuaScripts.RENEW,
                LuaScripts.COUNTS, LuaScripts.CONFIGURE)) {
            try {
                commands.scriptLoad(script.source());
            } catch (RuntimeException ignored) {
                // The first EVALSHA will get NOSCRIPT and send the source instead.
            }
        }
    }

    private <T> CompletableFuture<T> evalsha(LuaScripts.Script script, String[] argv) {
        return commands.<T>evalsha(script.sha(), ScriptOutputType.MULTI, keys.all(), argv).toCompletableFuture();
    }

    private <T> CompletableFuture<T> eval(LuaScripts.Script script, String[] argv) {
        try {
            return commands.<T>eval(script.source(), ScriptOutputType.MULTI, keys.all(), argv).toCompletableFuture();
        } catch (RuntimeException refused) {
            return CompletableFuture.failedFuture(refused);
        }
    }

    private <T> CompletableFuture<T> withTimeout(CompletableFuture<T> reply, LuaScripts.Script script) {
        if (reply.isDone()) {
            return reply;
        }
        CompletableFuture<T> bounded = new CompletableFuture<>();
        Scheduler.Cancellable timer;
        try {
            timer = scheduler.schedule(() -> {
                TimeoutException timeout = new TimeoutException("Redis did not answer the '" + script.name()
                        + "' script within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
                if (bounded.completeExceptionally(timeout)) {
                    timedOut.accept(timeout);
                }
            }, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException schedulerRefused) {
            return reply;
        }
        reply.whenComplete((value, failure) -> {
            timer.cancel();
            if (failure == null) {
                bounded.complete(value);
            } else {
                bounded.completeExceptionally(unwrap(failure));
            }
        });
        return bounded;
    }

    static Throwable unwrap(Throwable failure) {
        Throwable current = failure;
        while (current instanceof CompletionException && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    @Override
    public String toString() {
        return "ScriptRunner" + Arrays.toString(keys.all());
    }
}
