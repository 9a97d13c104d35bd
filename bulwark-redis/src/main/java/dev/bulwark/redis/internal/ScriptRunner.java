package dev.bulwark.redis.internal;

import dev.bulwark.Scheduler;
import dev.bulwark.internal.util.MillisText;
import dev.bulwark.internal.util.Stages;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
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
 * before every script sent after that call ({@link ReleaseOutbox}, invariant 2). Two commands in flight at the same
 * time may execute out of order when the first is re-sent after {@code NOSCRIPT}; the protocol never relies on their
 * order (see {@link RemoteWaiter} for how a release is kept behind its acquire).
 */
final class ScriptRunner {

    private final RedisScriptingAsyncCommands<String, String> commands;
    private final BulkheadKeys keys;
    private final Supplier<ClusterLimits> defaults;
    private final Scheduler scheduler;
    private final long timeoutNanos;
    /** The limits argument last sent, reused while the limits seen stay the same. */
    private volatile LimitsArgument limitsArgument;
    /** Told of every command that timed out (on the scheduler's thread): Redis is not answering. */
    private final Consumer<TimeoutException> timedOut;
    /** The releases nobody waits for, sent on their own or with the next script. */
    private final ReleaseOutbox outbox;
    /** Where the outbox's flushes run; told on which thread each reply arrives. */
    private final ReleaseFlusher flusher;

    ScriptRunner(RedisScriptingAsyncCommands<String, String> commands, BulkheadKeys keys,
                 Supplier<ClusterLimits> defaults, Scheduler scheduler, ReleaseFlusher releaseFlusher,
                 ReleaseOutbox.Outcomes released, long timeoutNanos, Consumer<TimeoutException> timedOut) {
        this.commands = commands;
        this.keys = keys;
        this.defaults = defaults;
        this.scheduler = scheduler;
        this.timeoutNanos = timeoutNanos;
        this.timedOut = timedOut;
        this.flusher = releaseFlusher;
        this.outbox = new ReleaseOutbox(releaseFlusher.handOff(), releaseFlusher.mayWait(), this::send, released);
    }

    /**
     * Sends a script, after (or together with) every release handed to {@link #release} before this call. Never
     * throws: a command the client refuses (for example while disconnected) fails the returned future.
     *
     * @param script the script
     * @param arguments the script's own arguments, from {@code ARGV[2]} on ({@code ARGV[1]} carries the limits that
     *     initialize the config hash when Redis has lost it)
     * @return the reply, completed on a Redis I/O thread or the scheduler's thread
     */
    CompletableFuture<List<Object>> run(LuaScripts.Script script, String... arguments) {
        return outbox.run(script, arguments);
    }

    /**
     * Releases a closed permit without waiting: sent within one hand-off to the release flusher (the connection's
     * event loop, see {@link ReleaseFlusher}), or earlier with the next script (see {@link ReleaseOutbox}); its
     * outcome goes to the {@code released} callback.
     */
    void release(RemotePermit permit) {
        outbox.release(permit);
    }

    /** Sends every pending release now (before a shutdown's last command). */
    void flushReleases() {
        outbox.flush();
    }

    private CompletableFuture<List<Object>> send(LuaScripts.Script script, String[] arguments) {
        String[] argv = new String[1 + arguments.length];
        argv[0] = limitsArgument();
        System.arraycopy(arguments, 0, argv, 1, arguments.length);
        Reply reply = new Reply(script, argv);
        try {
            commands.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys.all(), argv).whenComplete(reply);
        } catch (RuntimeException refused) {
            return CompletableFuture.failedFuture(refused);
        }
        reply.arm();
        return reply;
    }

    /** {@code ARGV[1]} of every script, made again only when the limits seen change. */
    private String limitsArgument() {
        ClusterLimits current = defaults.get();
        LimitsArgument cached = limitsArgument;
        if (cached == null || !cached.limits.equals(current)) {
            cached = new LimitsArgument(current, current.asArgument());
            limitsArgument = cached;
        }
        return cached.text;
    }

    private record LimitsArgument(ClusterLimits limits, String text) {
    }

    /**
     * One script's reply: the future the caller gets, the callback of the command (which re-sends the source once on
     * {@code NOSCRIPT}) and the command timeout's task, in one object, since every call makes one. Completed by the
     * command's callback (a Redis I/O thread) or the timeout (the scheduler's thread), whichever comes first; the
     * timer is cancelled by whichever of {@link #arm} and the completion comes second ({@link #timer} is written
     * before {@link #arm} reads {@code isDone()}, and the completion happens before it reads {@link #timer}).
     */
    private final class Reply extends CompletableFuture<List<Object>>
            implements BiConsumer<List<Object>, Throwable>, Runnable {

        private final LuaScripts.Script script;
        private final String[] argv;
        /** Written and read only by the command callbacks, which run one after the other. */
        private boolean resent;
        private volatile Scheduler.Cancellable timer;

        Reply(LuaScripts.Script script, String[] argv) {
            this.script = script;
            this.argv = argv;
        }

        @Override
        public void accept(List<Object> value, Throwable failure) {
            flusher.replyArrived(); // usually on the event loop that read the reply: where flushes go next
            Throwable cause = failure == null ? null : Stages.unwrap(failure);
            if (cause instanceof RedisNoScriptException && !resent) {
                resent = true;
                try {
                    commands.<List<Object>>eval(script.source(), ScriptOutputType.MULTI, keys.all(), argv)
                            .whenComplete(this);
                } catch (RuntimeException refused) {
                    finish(null, refused);
                }
                return;
            }
            // A corrupt config is not an unavailable Redis: named, so that no path fails open on it.
            CorruptConfigException corrupt = cause == null ? null
                    : CorruptConfigException.of(keys.bulkheadName(), cause);
            finish(value, corrupt != null ? corrupt : cause);
        }

        private void finish(List<Object> value, Throwable cause) {
            if (cause == null) {
                complete(value);
            } else {
                completeExceptionally(cause);
            }
            Scheduler.Cancellable armed = timer;
            if (armed != null) {
                armed.cancel();
            }
        }

        /**
         * Bounds the reply by the command timeout, unless it is already done or the scheduler throws (whatever it
         * throws: the reply is then bounded only by the client's own timeout).
         */
        void arm() {
            if (isDone()) {
                return;
            }
            try {
                Scheduler.Cancellable armed = scheduler.schedule(this, timeoutNanos, TimeUnit.NANOSECONDS);
                timer = armed;
                if (isDone()) {
                    armed.cancel();
                }
            } catch (RuntimeException | Error schedulerRefused) {
                // Unbounded, as a client without a timer would be: Lettuce's own command timeout still applies. An
                // Error too: thrown on, it would escape run() after the command was written, so nobody would handle
                // its reply (an acquire's slot or queue place taken for nobody, a waiter registered forever).
            }
        }

        /** The command timeout ran out first. */
        @Override
        public void run() {
            TimeoutException timeout = new TimeoutException("Redis did not answer the '" + script.name()
                    + "' script within " + MillisText.ofNanos(timeoutNanos) + " ms");
            if (completeExceptionally(timeout)) {
                timedOut.accept(timeout);
            }
        }
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

    @Override
    public String toString() {
        return "ScriptRunner" + Arrays.toString(keys.all());
    }
}
