package dev.bulwark.testing;

import dev.bulwark.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler that runs nothing by itself: it keeps every task so that a test can fire one on the thread of its
 * choice, at the instant of its choice, even after the policy cancelled it (a real timer may already have started
 * a task when it is cancelled). Thread-safe.
 */
public final class CapturingScheduler implements Scheduler {

    private final List<Runnable> tasks = new ArrayList<>();
    private final List<Boolean> cancelled = new ArrayList<>();

    @Override
    public synchronized Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        int index = tasks.size();
        tasks.add(task);
        cancelled.add(false);
        return () -> {
            synchronized (this) {
                cancelled.set(index, true);
            }
        };
    }

    public synchronized Runnable task(int index) {
        return tasks.get(index);
    }

    public synchronized boolean isCancelled(int index) {
        return cancelled.get(index);
    }

    public synchronized int size() {
        return tasks.size();
    }

    /** Drops every task, as a real timer drops tasks that ran or were cancelled, so none keeps its caller reachable. */
    public synchronized void forget() {
        tasks.replaceAll(task -> null);
    }
}
