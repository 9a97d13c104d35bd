package dev.bulwark.testing;

import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;

/** Starting threads that block in a bulkhead, and waiting until they do. */
public final class Threads {

    private Threads() {
    }

    /** Starts {@code body} on a new thread and returns its future outcome. */
    public static <T> FutureTask<T> start(String name, Callable<T> body) {
        FutureTask<T> task = new FutureTask<>(body);
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return task;
    }

    /** Starts {@code body} on a new thread and returns once the bulkhead's queue has grown by one. */
    public static <T> FutureTask<T> startQueued(Bulkhead bulkhead, String name, Callable<T> body) {
        int before = bulkhead.queuedCount();
        FutureTask<T> task = start(name, body);
        awaitQueued(bulkhead, before + 1);
        return task;
    }

    public static void awaitQueued(Bulkhead bulkhead, int queued) {
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10)).until(() -> bulkhead.queuedCount() == queued);
    }

    /** Waits until {@code thread} is parked (WAITING or TIMED_WAITING). */
    public static void awaitParked(Thread thread) {
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10)).until(() -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING);
    }
}
