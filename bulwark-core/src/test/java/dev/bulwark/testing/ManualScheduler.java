package dev.bulwark.testing;

import dev.bulwark.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A scheduler driven by a {@link FakeTicker}: tasks run on the thread that calls {@link #advance(Duration)},
 * when the fake time reaches their deadline. Can be told to refuse work. Thread-safe.
 */
public final class ManualScheduler implements Scheduler {

    private final FakeTicker ticker;
    private final List<Task> tasks = new ArrayList<>();
    private volatile boolean refusing;

    public ManualScheduler(FakeTicker ticker) {
        this.ticker = ticker;
    }

    @Override
    public Cancellable schedule(Runnable runnable, long delay, TimeUnit unit) {
        if (refusing) {
            throw new RejectedExecutionException("ManualScheduler told to refuse");
        }
        Task task = new Task(ticker.read() + unit.toNanos(delay), runnable);
        synchronized (tasks) {
            tasks.add(task);
        }
        return () -> task.cancelled.set(true);
    }

    public void refuse() {
        refusing = true;
    }

    /** Moves time forward and runs every task that became due, in deadline order, on this thread. */
    public void advance(Duration duration) {
        ticker.advance(duration);
        for (;;) {
            Task due;
            synchronized (tasks) {
                due = tasks.stream().filter(t -> t.deadline <= ticker.read())
                        .min(Comparator.comparingLong(t -> t.deadline)).orElse(null);
                if (due == null) {
                    return;
                }
                tasks.remove(due);
            }
            if (!due.cancelled.get()) {
                due.runnable.run();
            }
        }
    }

    /** Number of scheduled tasks that were neither run nor cancelled. */
    public int pendingTasks() {
        synchronized (tasks) {
            return (int) tasks.stream().filter(t -> !t.cancelled.get()).count();
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
