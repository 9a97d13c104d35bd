package dev.bulwark.spring.shedding;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the test application's handlers wait until the test lets them finish: each request that reaches a handler
 * is counted and parks (as a future, or a latch for the blocking handler) under its id until released.
 */
public final class Gate {
    private final Map<String, CompletableFuture<String>> waiting = new ConcurrentHashMap<>();
    private final AtomicInteger entered = new AtomicInteger();
    private final CountDownLatch blockingRelease = new CountDownLatch(1);
    private volatile boolean allReleased;

    /** Counts a request in and returns the future its handler completes with. */
    CompletableFuture<String> arrive(String id) {
        CompletableFuture<String> result = waiting.computeIfAbsent(id, ignored -> new CompletableFuture<>());
        entered.incrementAndGet();
        if (allReleased) {
            result.complete("done");
        }
        return result;
    }

    /** Counts a request in and blocks its (servlet) thread until {@link #releaseAll()}. */
    String arriveBlocking(String id) throws InterruptedException {
        entered.incrementAndGet();
        if (!blockingRelease.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released: " + id);
        }
        return "done " + id;
    }

    /** How many requests reached a handler. */
    public int entered() {
        return entered.get();
    }

    /** Lets one waiting handler finish. */
    public void release(String id) {
        waiting.computeIfAbsent(id, ignored -> new CompletableFuture<>()).complete("done " + id);
    }

    /** Lets every handler finish, now and later. */
    public void releaseAll() {
        allReleased = true;
        blockingRelease.countDown();
        waiting.values().forEach(future -> future.complete("done"));
    }
}
