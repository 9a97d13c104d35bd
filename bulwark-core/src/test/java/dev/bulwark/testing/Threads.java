package dev.bulwark.testing;

import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/** Starting threads that block in a bulkhead, and waiting until they do. */
public final class Threads {

    private Threads() {
    }

    /**
     * A call started on a thread of its own that is now parked in a bulkhead's queue.
     *
     * @param thread the thread, to interrupt, unpark or gate
     * @param outcome what the call returns or throws
     */
    public record Parked<T>(Thread thread, FutureTask<T> outcome) {
    }

    /** Starts {@code body} on a new thread and returns its future outcome. */
    public static <T> FutureTask<T> start(String name, Callable<T> body) {
        return startThread(name, body).outcome();
    }

    /**
     * Starts {@code body} on a new thread and returns once the bulkhead's queue has grown by one and the thread is
     * parked: a blocking call in it is then waiting, past every check it makes before parking.
     */
    public static <T> Parked<T> startParked(Bulkhead bulkhead, String name, Callable<T> body) {
        int before = bulkhead.queuedCount();
        Parked<T> parked = startThread(name, body);
        awaitQueued(bulkhead, before + 1);
        awaitParked(parked.thread());
        return parked;
    }

    private static <T> Parked<T> startThread(String name, Callable<T> body) {
        FutureTask<T> task = new FutureTask<>(body);
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
        return new Parked<>(thread, task);
    }

    /** Starts {@code body} on a new thread and returns once the bulkhead's queue has grown by one. */
    public static <T> FutureTask<T> startQueued(Bulkhead bulkhead, String name, Callable<T> body) {
        int before = bulkhead.queuedCount();
        FutureTask<T> task = start(name, body);
        awaitQueued(bulkhead, before + 1);
        return task;
    }

    public static void awaitQueued(Bulkhead bulkhead, int queued) {
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10))
                .until(() -> bulkhead.queuedCount() == queued);
    }

    /** Waits until {@code thread} is parked (WAITING or TIMED_WAITING). */
    public static void awaitParked(Thread thread) {
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10))
                .until(() -> thread.getState() == Thread.State.WAITING
                        || thread.getState() == Thread.State.TIMED_WAITING);
    }

    /** Waits (up to 10 s, else fails) for {@code latch}; for test threads that cannot throw checked exceptions. */
    public static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Waits (up to 10 s, else fails) until every party has reached {@code barrier}. */
    public static void awaitBarrier(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
