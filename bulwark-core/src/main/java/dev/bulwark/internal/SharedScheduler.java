package dev.bulwark.internal;

import dev.bulwark.Scheduler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process-wide timer behind {@link Scheduler#shared()}: one daemon thread for every timed wait, timeout and
 * delayed retry of every policy, so that 100 000 waiting calls cost 100 000 heap entries and no threads.
 */
public final class SharedScheduler implements Scheduler {

    /** The one instance; its executor is created on first use. */
    public static final SharedScheduler INSTANCE = new SharedScheduler();

    private SharedScheduler() {
    }

    @Override
    public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        ScheduledFuture<?> future = Holder.EXECUTOR.schedule(task, delay, unit);
        return () -> future.cancel(false);
    }

    @Override
    public String toString() {
        return "Scheduler.shared()";
    }

    /** Lazy holder: the thread is started only when some policy first schedules something. */
    private static final class Holder {
        static final ScheduledThreadPoolExecutor EXECUTOR = create();

        private static ScheduledThreadPoolExecutor create() {
            AtomicInteger counter = new AtomicInteger();
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable,
                        counter.getAndIncrement() == 0 ? "bulwark-timer" : "bulwark-timer-" + counter.get());
                thread.setDaemon(true);
                return thread;
            });
            // Cancelled timeouts are the common case (most waits end by being granted); removing them at once
            // keeps the heap from holding finished waiters until their deadline.
            executor.setRemoveOnCancelPolicy(true);
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            return executor;
        }
    }
}
