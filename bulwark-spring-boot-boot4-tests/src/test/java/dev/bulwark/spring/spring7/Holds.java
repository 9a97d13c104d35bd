package dev.bulwark.spring.spring7;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds calls inside the annotated methods until the test lets them go, and counts them: how many are in, and the
 * most that were ever in at once, by key.
 */
final class Holds {
    private final Map<String, Semaphore> releases = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> most = new ConcurrentHashMap<>();

    void enter(String key) throws InterruptedException {
        int now = inside.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        most.computeIfAbsent(key, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
        try {
            // Bounded, so that a failing test cannot hang the build.
            if (!releases.computeIfAbsent(key, k -> new Semaphore(0)).tryAcquire(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released: " + key);
            }
        } finally {
            inside.get(key).decrementAndGet();
        }
    }

    int inside(String key) {
        return inside.computeIfAbsent(key, k -> new AtomicInteger()).get();
    }

    int most(String key) {
        return most.computeIfAbsent(key, k -> new AtomicInteger()).get();
    }

    /** Lets every held call go, and the next ones through: for the end of a test, failed or not. */
    void releaseAll() {
        releases.values().forEach(release -> release.release(10_000));
    }

    void release(String key, int calls) {
        releases.computeIfAbsent(key, k -> new Semaphore(0)).release(calls);
    }
}
