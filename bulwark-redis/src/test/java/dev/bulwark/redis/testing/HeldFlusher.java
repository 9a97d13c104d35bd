package dev.bulwark.redis.testing;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;

/**
 * Where a {@code RedisBulkhead} built with it (the builder's package-private {@code releaseFlusher}, the tests'
 * seam) flushes the releases that no script of its own carried, instead of its connection's I/O event loop. While
 * held, every flush waits here, so every release waits for the instance's next script to carry it and a test
 * counts exactly what rides on what, with no thread timing involved; otherwise flushes run at once on the thread
 * that hands them over. Track it in the {@link RedisFixture} before the bulkheads that use it, so that they close
 * first. Thread-safe: a flush handed over is run exactly once, by {@link #letGo} or by a later hand-off's drain.
 */
public final class HeldFlusher implements Executor, AutoCloseable {

    private final Queue<Runnable> flushes = new ConcurrentLinkedQueue<>();
    private volatile boolean held;

    /** From now on, flushes wait until {@link #letGo()}. */
    public void hold() {
        held = true;
    }

    /** Runs the flushes queued meanwhile on the calling thread, and every later one at once. */
    public void letGo() {
        held = false;
        drain();
    }

    /** How many flushes wait. */
    public int waiting() {
        return flushes.size();
    }

    @Override
    public void execute(Runnable flush) {
        flushes.add(flush);
        // Read after the add: a letGo that cleared the flag drains after clearing it, so it sees this flush.
        if (!held) {
            drain();
        }
    }

    private void drain() {
        for (Runnable flush; (flush = flushes.poll()) != null; ) {
            flush.run();
        }
    }

    @Override
    public void close() {
        letGo();
    }
}
