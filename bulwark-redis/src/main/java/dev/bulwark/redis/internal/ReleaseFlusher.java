package dev.bulwark.redis.internal;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where the {@link ReleaseOutbox} flushes the releases that no script of the instance carried: on the I/O event
 * loop that delivers the command connection's replies, or, until that loop is known (and when it cannot be), on
 * Lettuce's event executors.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Why the event loop.</b> An uncontended caller closes its permit and acquires again at once; the release's
 * flush almost always finds that acquire has already carried it. Handed to an event-executor thread, the flush
 * still wakes that thread (a futex wake on the closing thread, and a third runnable thread competing with the
 * caller and the I/O thread on a small machine) for nothing. Handed to the connection's own event loop, it wakes
 * the one thread that the next acquire's write wakes anyway, and a release that does go alone is written from the
 * loop straight into its channel, without another hop.
 *
 * <p><b>How the loop is found, with public API only.</b> Lettuce completes a command's future on the event loop
 * of the channel that read the reply (a reply completed elsewhere, e.g. a command failed on the caller's thread,
 * simply does not tell a loop). {@link #replyArrived} runs in
 * every script reply's callback and asks each loop of the client's I/O group, which this class allocates from
 * the resources' {@link EventLoopGroupProvider} exactly as the client does (same type, so the same shared group,
 * reference-counted and released by {@link #close}), whether it is the current thread
 * ({@link EventExecutor#inEventLoop()}). The answer is cached in {@link #loop}; after a reconnect to another loop,
 * the next reply finds the new one. Until a loop is known, flushes go to the event executors, as before; if the
 * first {@value #GIVE_UP_AFTER} replies arrive on no loop of the group (connections whose replies are read
 * elsewhere, such as another transport), the group is released and the executors are used for good.
 *
 * <p><b>Never blocking the loop.</b> What a flush runs there is {@link ReleaseOutbox#flushWithoutWaiting}: it
 * takes the outbox's lock only by {@code tryLock} and hands the flush to {@link #mayWait()} (the event executors)
 * when another sender holds it, sends the releases with an asynchronous {@code EVALSHA} (written straight into the
 * channel on its own loop, never waiting for a reply), and runs no user code: the releases' outcomes are handled
 * when their reply arrives, on the I/O thread as every reply is.
 *
 * <p>Thread-safe: {@link #loop} is a racy but safe cache (any loop of the group, or none, is a correct place to
 * flush; only its cost differs), {@link #misses} is only an estimate that bounds the search, and the group is
 * released once, by whichever of the give-up and {@link #close} takes it out of {@link #loops}.
 */
final class ReleaseFlusher {

    /** Replies without a loop of the group before the search stops for good. */
    static final int GIVE_UP_AFTER = 16;

    private final Executor executors;
    private final EventLoopGroupProvider provider;
    /** The client's I/O event loops, or {@code null} once released (or never allocated); released once. */
    private final AtomicReference<EventLoopGroup> loops;
    /** The loop that delivered the latest script reply, or {@code null} while unknown. */
    private volatile EventExecutor loop;
    private volatile int misses;
    private final Executor handOff = this::handOff;

    private ReleaseFlusher(Executor executors, EventLoopGroupProvider provider, EventLoopGroup loops) {
        this.executors = executors;
        this.provider = provider;
        this.loops = new AtomicReference<>(loops);
    }

    /**
     * Flushes on the event loop of the connection whose replies {@link #replyArrived} sees, allocated from the
     * client's resources (released by {@link #close}); on their event executors until that loop is known.
     */
    static ReleaseFlusher onEventLoop(ClientResources resources) {
        EventLoopGroupProvider provider = resources.eventLoopGroupProvider();
        EventLoopGroup group;
        try {
            group = provider.allocate(Transports.eventLoopGroupClass());
        } catch (RuntimeException unavailable) {
            group = null;
        }
        return new ReleaseFlusher(resources.eventExecutorGroup(), provider, group);
    }

    /** Flushes every release on the given executor, never on an event loop: the tests' deterministic seam. */
    static ReleaseFlusher on(Executor executor) {
        return new ReleaseFlusher(executor, null, null);
    }

    /** Where a flush is handed when a release is queued; what runs there must not block. */
    Executor handOff() {
        return handOff;
    }

    /** Where a flush that must wait for the outbox's lock runs (never an event loop). */
    Executor mayWait() {
        return executors;
    }

    private void handOff(Runnable flush) {
        EventExecutor known = loop;
        if (known != null) {
            try {
                known.execute(flush);
                return;
            } catch (RejectedExecutionException shutDown) {
                loop = null; // the resources are shutting down: the executors refuse too, or still run it
            }
        }
        executors.execute(flush);
    }

    /** Called on the thread that completes a script's reply: learns the event loop that delivered it. */
    void replyArrived() {
        EventExecutor known = loop;
        if (known != null && known.inEventLoop()) {
            return;
        }
        EventLoopGroup group = loops.get();
        if (group == null) {
            return;
        }
        for (EventExecutor candidate : group) {
            if (candidate.inEventLoop()) {
                loop = candidate;
                return;
            }
        }
        if (known == null && ++misses >= GIVE_UP_AFTER && loops.compareAndSet(group, null)) {
            release(group);
        }
    }

    /** Whether flushes are handed to a known event loop (for tests and diagnostics). */
    boolean onKnownLoop() {
        return loop != null;
    }

    /** Gives the allocated event loop group back; flushes handed off afterwards go to the executors. */
    void close() {
        EventLoopGroup group = loops.getAndSet(null);
        loop = null;
        if (group != null) {
            release(group);
        }
    }

    private void release(EventLoopGroup group) {
        try {
            provider.release(group, 0, 2, TimeUnit.SECONDS);
        } catch (RuntimeException ignored) {
            // The resources are shut down already, which released every group.
        }
    }
}
