package dev.bulwark.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.redis.testing.RedisFixture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ReleaseFlusher} on a real client and server: flushes go to Lettuce's event executors until a reply shows
 * the event loop of the connection, then to that loop, and back to the executors once it is closed or when replies
 * never arrive on a loop of the client's group.
 */
class ReleaseFlusherTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    /** Where a hand-off ran: its thread, and whether that thread is one of Lettuce's event executors. */
    private record Ran(Thread thread, boolean onEventExecutors) {
    }

    private static Ran ranOn(Executor executor, EventExecutorGroup eventExecutors) throws Exception {
        CompletableFuture<Ran> ran = new CompletableFuture<>();
        executor.execute(() -> ran.complete(new Ran(Thread.currentThread(), isIn(eventExecutors))));
        return ran.get(10, TimeUnit.SECONDS);
    }

    private static boolean isIn(EventExecutorGroup group) {
        for (EventExecutor executor : group) {
            if (executor.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /** The thread that completes a reply of the connection, having told the flusher, as a script's reply does. */
    private static Thread replyThread(StatefulRedisConnection<String, String> connection, ReleaseFlusher flusher)
            throws Exception {
        for (;;) {
            CompletableFuture<Thread> thread = new CompletableFuture<>();
            Thread test = Thread.currentThread();
            connection.async().ping().whenComplete((pong, failure) -> {
                // A reply that arrived before the callback was attached completes here, on the test's thread.
                if (Thread.currentThread() != test) {
                    flusher.replyArrived();
                }
                thread.complete(Thread.currentThread());
            });
            Thread completing = thread.get(10, TimeUnit.SECONDS);
            if (completing != test) {
                return completing;
            }
        }
    }

    @Test
    void flushesRunOnTheEventLoopThatDeliversTheConnectionsRepliesOnceItIsKnown() throws Exception {
        StatefulRedisConnection<String, String> connection = redis.track(redis.newClient().connect());
        EventExecutorGroup eventExecutors = connection.getResources().eventExecutorGroup();
        ReleaseFlusher flusher = ReleaseFlusher.onEventLoop(connection.getResources());

        assertThat(flusher.onKnownLoop()).isFalse();
        assertThat(ranOn(flusher.handOff(), eventExecutors).onEventExecutors()).as("before any reply").isTrue();

        Thread loop = replyThread(connection, flusher);
        assertThat(flusher.onKnownLoop()).isTrue();
        Ran handedOff = ranOn(flusher.handOff(), eventExecutors);
        assertThat(handedOff.thread()).as("the loop that read the reply").isSameAs(loop);
        assertThat(handedOff.onEventExecutors()).isFalse();
        assertThat(ranOn(flusher.mayWait(), eventExecutors).onEventExecutors()).as("never a loop").isTrue();

        flusher.close();
        assertThat(flusher.onKnownLoop()).isFalse();
        assertThat(ranOn(flusher.handOff(), eventExecutors).onEventExecutors()).as("after close").isTrue();
        replyThread(connection, flusher);
        assertThat(flusher.onKnownLoop()).as("a closed flusher searches no loop").isFalse();
    }

    @Test
    void repliesThatNeverArriveOnALoopOfTheGroupMakeItGiveTheGroupUpForTheEventExecutors() throws Exception {
        StatefulRedisConnection<String, String> connection = redis.track(redis.newClient().connect());
        EventExecutorGroup eventExecutors = connection.getResources().eventExecutorGroup();
        ReleaseFlusher flusher = ReleaseFlusher.onEventLoop(connection.getResources());

        for (int i = 0; i < ReleaseFlusher.GIVE_UP_AFTER; i++) {
            flusher.replyArrived(); // on the test's thread, as replies published on a scheduler would be
        }
        replyThread(connection, flusher);

        assertThat(flusher.onKnownLoop()).isFalse();
        assertThat(ranOn(flusher.handOff(), eventExecutors).onEventExecutors()).isTrue();
        flusher.close();
    }

    @Test
    void aFlusherOnAGivenExecutorUsesItForEveryFlushAndLearnsNoLoop() throws Exception {
        StatefulRedisConnection<String, String> connection = redis.track(redis.newClient().connect());
        Thread[] ran = new Thread[1];
        ReleaseFlusher flusher = ReleaseFlusher.on(task -> {
            ran[0] = Thread.currentThread();
            task.run();
        });

        replyThread(connection, flusher);
        flusher.handOff().execute(() -> { });

        assertThat(flusher.onKnownLoop()).isFalse();
        assertThat(ran[0]).isSameAs(Thread.currentThread());
        flusher.close();
    }
}
