package dev.bulwark.micrometer;

import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A ticker and a scheduler driven by the test: time moves only in {@link #advance}, which runs the tasks that fell
 * due, in deadline order, on the calling thread. Makes recorded durations exact.
 */
final class ManualClock implements Ticker, Scheduler {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final List<Task> tasks = new ArrayList<>();

    @Override
    public long read() {
        return nanos.get();
    }

    @Override
    public Cancellable schedule(Runnable runnable, long delay, TimeUnit unit) {
        Task task = new Task(read() + unit.toNanos(delay), runnable);
        synchronized (tasks) {
            tasks.add(task);
        }
        return () -> {
            synchronized (tasks) {
                tasks.remove(task);
            }
        };
    }

    /** Moves time forward and runs every task that is then due. */
    void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
        while (true) {
            Task due = null;
            synchronized (tasks) {
                for (Task task : tasks) {
                    if (task.deadline <= read() && (due == null || task.deadline < due.deadline)) {
                        due = task;
                    }
                }
                if (due == null) {
                    return;
                }
                tasks.remove(due);
            }
            due.runnable.run();
        }
    }

    private static final class Task {
        final long deadline;
        final Runnable runnable;

        Task(long deadline, Runnable runnable) {
            this.deadline = deadline;
            this.runnable = runnable;
        }
    }
}
