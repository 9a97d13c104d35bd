package dev.bulwark.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReleaseOutbox}'s two invariants under forced interleavings and under a stress of racing senders: every
 * release is written exactly once, and a release is written before every script its releasing thread sends after
 * it, whether a flush, another thread's script or the thread's own next acquire takes it. The sender records the
 * order in which commands reach the connection, which is the order Redis executes them in.
 */
class ReleaseOutboxRaceTest {

    /** One command as written: the script and its arguments. */
    private record Written(LuaScripts.Script script, List<String> arguments) {
    }

    private final ConcurrentLinkedQueue<Written> connection = new ConcurrentLinkedQueue<>();
    private final List<String> settled = new CopyOnWriteArrayList<>();
    private final ExecutorService flusher = Executors.newFixedThreadPool(2);
    private final ExecutorService loop = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopFlusher() {
        flusher.shutdownNow();
        loop.shutdownNow();
    }

    private CompletableFuture<List<Object>> write(LuaScripts.Script script, String[] arguments) {
        connection.add(new Written(script, List.of(arguments)));
        List<Object> reply = new ArrayList<>();
        int fields = script == LuaScripts.ACQUIRE ? ReleaseOutbox.ACQUIRE_REPLY_FIELDS : 0;
        for (int i = 0; i < fields; i++) {
            reply.add(1L);
        }
        int own = script == LuaScripts.ACQUIRE ? ReleaseOutbox.ACQUIRE_ARGUMENTS : 0;
        for (int i = own; i < arguments.length; i++) {
            reply.add(1L);
        }
        return CompletableFuture.completedFuture(reply);
    }

    private ReleaseOutbox outbox(java.util.concurrent.Executor executor, ReleaseOutbox.Sender sender) {
        return outbox(executor, executor, sender);
    }

    private ReleaseOutbox outbox(java.util.concurrent.Executor handOff, java.util.concurrent.Executor mayWait,
                                 ReleaseOutbox.Sender sender) {
        return new ReleaseOutbox(handOff, mayWait, sender, (permits, reply, failure, offset) -> {
            assertThat(failure).isNull();
            for (int i = 0; i < permits.size(); i++) {
                assertThat(reply.get(offset + i)).isEqualTo(1L);
                settled.add(permits.get(i).id);
            }
        });
    }

    private static RemotePermit permit(String id) {
        return new RemotePermit(null, id, 1, 0, 0);
    }

    private static String[] acquire(String id) {
        return new String[] {id, "1000", "1", "2"};
    }

    @Test
    void theNextAcquireCarriesAPendingReleaseAndTheFlushThenSendsNothing() {
        List<Runnable> flushes = new ArrayList<>();
        ReleaseOutbox outbox = outbox(flushes::add, this::write);

        outbox.release(permit("a"));
        outbox.run(LuaScripts.ACQUIRE, acquire("b"));
        flushes.forEach(Runnable::run);

        assertThat(connection).containsExactly(new Written(LuaScripts.ACQUIRE, List.of("b", "1000", "1", "2", "a")));
        assertThat(settled).containsExactly("a");
        assertThat(flushes).as("only the release that found the outbox empty submits a flush").hasSize(1);
    }

    @Test
    void anyOtherScriptIsSentBehindTheReleasesAndAReleaseMergesThem() {
        List<Runnable> flushes = new ArrayList<>();
        ReleaseOutbox outbox = outbox(flushes::add, this::write);

        outbox.release(permit("a"));
        outbox.release(permit("b"));
        outbox.run(LuaScripts.COUNTS, new String[0]);
        outbox.release(permit("c"));
        outbox.run(LuaScripts.RELEASE, new String[] {"orphan"});

        assertThat(connection).containsExactly(new Written(LuaScripts.RELEASE, List.of("a", "b")),
                new Written(LuaScripts.COUNTS, List.of()), new Written(LuaScripts.RELEASE, List.of("orphan", "c")));
        assertThat(settled).containsExactly("a", "b", "c");
    }

    @Test
    void aFlushRunsTheReleasesNobodyCarried() {
        List<Runnable> flushes = new ArrayList<>();
        ReleaseOutbox outbox = outbox(flushes::add, this::write);

        outbox.release(permit("a"));
        flushes.forEach(Runnable::run);

        assertThat(connection).containsExactly(new Written(LuaScripts.RELEASE, List.of("a")));
        assertThat(settled).containsExactly("a");
    }

    @Test
    void anExecutorThatRefusesFlushesOnTheReleasingThread() {
        ReleaseOutbox outbox = outbox(task -> {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        }, this::write);

        outbox.release(permit("a"));

        assertThat(connection).containsExactly(new Written(LuaScripts.RELEASE, List.of("a")));
    }

    /**
     * The interleaving that a check of "nothing pending" alone would get wrong: the flush has taken the release but
     * not yet written it when the releasing thread sends its next acquire. The acquire must wait for that write.
     */
    @Test
    void anAcquireWaitsForAFlushThatTookTheReleaseButHasNotWrittenIt() throws Exception {
        CountDownLatch flushTook = new CountDownLatch(1);
        CountDownLatch letFlushWrite = new CountDownLatch(1);
        ReleaseOutbox outbox = outbox(flusher, (script, arguments) -> {
            if (script == LuaScripts.RELEASE) {
                flushTook.countDown();
                try {
                    letFlushWrite.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return write(script, arguments);
        });

        outbox.release(permit("a"));
        assertThat(flushTook.await(10, TimeUnit.SECONDS)).isTrue();
        Thread caller = new Thread(() -> outbox.run(LuaScripts.ACQUIRE, acquire("b")));
        caller.start();
        await().until(() -> caller.getState() == Thread.State.WAITING);
        assertThat(connection).as("nothing is written while the flush holds the release").isEmpty();
        letFlushWrite.countDown();
        caller.join(10_000);

        assertThat(connection).containsExactly(new Written(LuaScripts.RELEASE, List.of("a")),
                new Written(LuaScripts.ACQUIRE, List.of("b", "1000", "1", "2")));
    }

    /**
     * The hand-off may run on an I/O event loop, which must never wait: while another sender holds the lock, the
     * handed-off flush returns at once and leaves the release that holder missed to a flush that may wait.
     */
    @Test
    void aHandedOffFlushNeverWaitsForTheLockAndLeavesWhatTheHolderMissedToAFlushThatMayWait() throws Exception {
        List<Runnable> handedOff = new ArrayList<>();
        List<Runnable> mayWait = new CopyOnWriteArrayList<>();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch letHolderWrite = new CountDownLatch(1);
        ReleaseOutbox outbox = outbox(handedOff::add, mayWait::add, (script, arguments) -> {
            if (script == LuaScripts.ACQUIRE) {
                holding.countDown();
                try {
                    letHolderWrite.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return write(script, arguments);
        });
        outbox.release(permit("a"));
        Thread holder = new Thread(() -> outbox.run(LuaScripts.ACQUIRE, acquire("b")));
        holder.start();
        assertThat(holding.await(10, TimeUnit.SECONDS)).as("the acquire took 'a' and holds the lock").isTrue();
        outbox.release(permit("c"));
        assertThat(handedOff).as("'c' found the outbox empty and handed a flush off").hasSize(2);

        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> handedOff.get(1).run(),
                "the handed-off flush waited for the lock");

        assertThat(mayWait).as("'c' left to a flush that may wait").hasSize(1);
        assertThat(connection).as("nothing written while the holder writes").isEmpty();
        letHolderWrite.countDown();
        holder.join(10_000);
        mayWait.get(0).run();
        handedOff.get(0).run();
        assertThat(connection).containsExactly(new Written(LuaScripts.ACQUIRE, List.of("b", "1000", "1", "2", "a")),
                new Written(LuaScripts.RELEASE, List.of("c")));
        assertThat(settled).containsExactly("a", "c");
    }

    @Test
    void aHandedOffFlushThatFindsTheLockFreeSendsAtOnceWithoutTheExecutorThatMayWait() {
        List<Runnable> handedOff = new ArrayList<>();
        ReleaseOutbox outbox = outbox(handedOff::add, task -> {
            throw new AssertionError("an uncontended hand-off needs no waiting flush");
        }, this::write);

        outbox.release(permit("a"));
        outbox.release(permit("b"));
        handedOff.forEach(Runnable::run);

        assertThat(handedOff).hasSize(1);
        assertThat(connection).containsExactly(new Written(LuaScripts.RELEASE, List.of("a", "b")));
    }

    /**
     * Threads that release and acquire in a loop, racing each other and the flushes: handed off to one thread (as
     * to an event loop, never waiting for the lock) and, when contended, to two threads that may wait.
     */
    @Test
    void underRacingSendersEveryReleaseIsWrittenOnceAndBeforeItsThreadsNextScript() throws Exception {
        int threads = 4;
        int rounds = 5_000;
        ReleaseOutbox outbox = outbox(loop, flusher, this::write);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            callers.add(new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < rounds; i++) {
                    outbox.run(LuaScripts.ACQUIRE, acquire(thread + ":" + i));
                    outbox.release(permit(thread + ":" + i));
                }
            }));
        }
        callers.forEach(Thread::start);
        start.countDown();
        for (Thread caller : callers) {
            caller.join(60_000);
        }
        // Every flush handed off has run (the loop submits the only waiting ones), and so has every waiting one.
        loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
        flusher.shutdown();
        assertThat(flusher.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        outbox.flush();

        Map<String, Integer> releasedAt = new HashMap<>();
        Map<String, Integer> acquiredAt = new HashMap<>();
        int position = 0;
        for (Written written : connection) {
            List<String> released = written.script() == LuaScripts.ACQUIRE
                    ? written.arguments().subList(ReleaseOutbox.ACQUIRE_ARGUMENTS, written.arguments().size())
                    : written.arguments();
            if (written.script() == LuaScripts.ACQUIRE) {
                acquiredAt.put(written.arguments().get(0), position);
            }
            for (String id : released) {
                assertThat(releasedAt.put(id, position)).as("%s released once", id).isNull();
            }
            position++;
        }
        assertThat(releasedAt).hasSize(threads * rounds);
        assertThat(settled).hasSize(threads * rounds);
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i + 1 < rounds; i++) {
                String id = t + ":" + i;
                String next = t + ":" + (i + 1);
                assertThat(releasedAt.get(id)).as("release of %s no later than the acquire of %s", id, next)
                        .isLessThanOrEqualTo(acquiredAt.get(next));
                assertThat(acquiredAt.get(id)).as("acquire of %s before its release", id)
                        .isLessThan(releasedAt.get(id));
            }
        }
        assertThat(Arrays.asList(LuaScripts.ACQUIRE, LuaScripts.RELEASE))
                .containsAll(connection.stream().map(Written::script).distinct().toList());
    }
}
