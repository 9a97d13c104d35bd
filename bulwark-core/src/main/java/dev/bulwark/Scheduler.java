package dev.bulwark;

import dev.bulwark.internal.SharedScheduler;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a task after a delay: how policies time out asynchronous waits and schedule asynchronous retries
 * without holding a thread per waiting call. Inject one into a builder to drive time in tests.
 *
 * <p>Implementations must be thread-safe. Tasks should be short: they complete futures and call overflow
 * handlers. {@link #schedule} may throw {@link java.util.concurrent.RejectedExecutionException} (for example
 * after a shutdown); policies handle that, and anything else it throws (any {@link RuntimeException}, an
 * {@link Error} too), so that no call waits forever and no asynchronous call's {@code callAsync} throws it:
 * <ul>
 *   <li>a bulkhead's asynchronous waiter whose {@code maxWait} timer is refused leaves the queue at once and its
 *       future fails with the scheduler's exception, the same instance; its listeners see it
 *       {@linkplain BulkheadListener#cancelled(long, Priority) cancelled} (the wait was given up, not refused by the
 *       bulkhead, so the overflow handler is not called);</li>
 *   <li>a {@link PartitionedBulkhead}'s asynchronous fair-share waiter whose timer is refused leaves the fair queue
 *       at once, gives its key's slot back, and its future fails with the scheduler's exception, the same
 *       instance;</li>
 *   <li>a {@link Timeout} whose deadline is refused reports nothing to its listeners and never runs the
 *       operation: a synchronous call throws the scheduler's exception, an asynchronous one's future fails with
 *       it;</li>
 *   <li>a {@link Retry} whose delay before the next attempt is refused (a {@link RuntimeException}) ends with the
 *       last failure, as if no attempt were left, and logs the refusal. An {@link Error} is not swallowed: the
 *       call's future fails with it, the same instance (its listeners are told
 *       {@linkplain RetryListener#failed(int, Throwable, boolean) failed} with it, retries not exhausted), and the
 *       last failure is logged.</li>
 * </ul>
 */
@FunctionalInterface
public interface Scheduler {

    /**
     * Schedules {@code task} to run once after {@code delay}.
     *
     * @param task what to run
     * @param delay how long to wait; zero or negative means as soon as possible
     * @param unit the unit of {@code delay}
     * @return a handle that cancels the task if it has not started
     * @throws java.util.concurrent.RejectedExecutionException when the task cannot be accepted (whatever else it
     *     throws is handled the same way by the policies, see above)
     */
    Cancellable schedule(Runnable task, long delay, TimeUnit unit);

    /**
     * Returns the scheduler shared by all policies that are not given one: a hashed timing wheel with 1 ms ticks
     * driven by a single daemon thread named {@code bulwark-timer}, created on first use. Scheduling and cancelling
     * take no lock. A task runs no earlier than its delay and normally within one tick (1 ms) after it; later only
     * when the timer thread is not scheduled by the operating system or another task is slow. A sync
     * {@link Timeout}'s deadline and an async bulkhead waiter's maximum wait on this scheduler are wheel nodes of
     * their own, whose delay counts from the timer thread's reading when it takes them: never early either, and
     * normally within two ticks (2 ms) late. A cancelled task is released at once (its timer node is unlinked on the
     * next tick), so finished waits and calls leave nothing behind. Tasks run on the timer thread and must be
     * short. Bulwark's own policies only decide there (a waiter's timeout, a deadline, the end of a retry delay) and
     * hand what follows that may run user code (an overflow handler, listeners, a caller's continuations, a granted
     * or retried operation) to {@link java.util.concurrent.ForkJoinPool#commonPool()}.
     *
     * @return the shared scheduler
     */
    static Scheduler shared() {
        return SharedScheduler.INSTANCE;
    }

    /**
     * Adapts a {@link ScheduledExecutorService}. The executor's life cycle stays the caller's. Once it is shut down,
     * scheduling throws its {@link java.util.concurrent.RejectedExecutionException}, which the policies turn into a
     * refusal or a failed call. A task it accepted and then drops without running ({@code shutdownNow()}, or
     * {@code shutdown()} with its existing delayed tasks set not to run) is lost: a bulkhead waiter's maximum wait then
     * ends only by a grant or a cancellation, a timeout's deadline no longer ends its call (the call runs to its own
     * end), and an asynchronous retry waiting out its delay never completes. Shut such an executor down after the
     * calls that use it have ended, or with a plain {@code shutdown()}, after which a
     * {@link java.util.concurrent.ScheduledThreadPoolExecutor} by default still runs the delayed tasks.
     *
     * @param executor the executor that runs the tasks
     * @return a scheduler that submits to {@code executor}
     * @throws NullPointerException when {@code executor} is {@code null}
     */
    static Scheduler of(ScheduledExecutorService executor) {
        Objects.requireNonNull(executor, "executor");
        return (task, delay, unit) -> {
            ScheduledFuture<?> future = executor.schedule(task, delay, unit);
            return () -> future.cancel(false);
        };
    }

    /** A scheduled task that may still be cancelled. */
    @FunctionalInterface
    interface Cancellable {

        /**
         * Cancels the task if it has not started. Idempotent; never throws.
         */
        void cancel();
    }
}
