package dev.bulwark.benchmarks.subjects;

import dev.failsafe.spi.Scheduler;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A Failsafe {@link Scheduler} that runs what is due now on the calling thread and hands anything delayed (the
 * bulkhead's wait timeouts) to one daemon timer thread. Thread-safe.
 */
final class CallerThreadScheduler implements Scheduler {

    static final CallerThreadScheduler INSTANCE = new CallerThreadScheduler();

    private final ScheduledExecutorService timer;

    private CallerThreadScheduler() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = Executors.defaultThreadFactory().newThread(runnable);
            thread.setName("failsafe-timer");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        this.timer = executor;
    }

    @Override
    public ScheduledFuture<?> schedule(Callable<?> callable, long delay, TimeUnit unit) {
        if (delay > 0) {
            return timer.schedule(callable, delay, unit);
        }
        try {
            return new Done(callable.call(), null);
        } catch (Throwable failure) {
            return new Done(null, failure);
        }
    }

    /** The outcome of a task that already ran on the caller's thread. */
    private static final class Done implements ScheduledFuture<Object> {
        private final Object result;
        private final Throwable failure;

        Done(Object result, Throwable failure) {
            this.result = result;
            this.failure = failure;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0;
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(0, other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean isDone() {
            return true;
        }

        @Override
        public Object get() throws ExecutionException {
            if (failure != null) {
                throw new ExecutionException(failure);
            }
            return result;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) throws ExecutionException {
            return get();
        }
    }
}
