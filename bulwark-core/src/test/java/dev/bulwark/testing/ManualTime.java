package dev.bulwark.testing;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fake clock starting at 0 and the scheduler it drives: tasks run, in deadline order, on the thread that calls
 * {@link #advance}. Thread-safe. Shared by the test suites of the modules (bulwark-core's test jar).
 */
public final class ManualTime implements Ticker, Scheduler {

    private final AtomicLong now = new AtomicLong();
    private final List<Task> tasks = new ArrayList<>();

    @Override
    public long read() {
        return now.get();
    }

    @Override
    public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        Task scheduled = new Task(now.get() + unit.toNanos(delay), task);
        synchronized (tasks) {
            tasks.add(scheduled);
        }
        return () -> scheduled.cancelled.set(true);
    }

    /** Moves time forward and runs, on this thread, every task that became due. */
    public void advance(Duration duration) {
        long until = now.addAndGet(duration.toNanos());
        List<Task> due = new ArrayList<>();
        synchronized (tasks) {
            tasks.removeIf(task -> task.deadline <= until && due.add(task));
        }
        due.sort((a, b) -> Long.compare(a.deadline, b.deadline));
        for (Task task : due) {
            if (!task.cancelled.get()) {
                task.runnable.run();
            }
        }
    }

    public int pendingTasks() {
        synchronized (tasks) {
            return (int) tasks.stream().filter(task -> !task.cancelled.get()).count();
        }
    }

    private static final class Task {
        final long deadline;
        final Runnable runnable;
        final AtomicBoolean cancelled = new AtomicBoolean();

        Task(long deadline, Runnable runnable) {
            this.deadline = deadline;
            this.runnable = runnable;
        }
    }
}
