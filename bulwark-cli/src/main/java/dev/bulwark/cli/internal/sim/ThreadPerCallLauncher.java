package dev.bulwark.cli.internal.sim;

import dev.bulwark.Bulkhead;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import dev.bulwark.Priority;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs each call with the blocking {@link Policy#call} (the {@link Bulkhead}'s, or a pipeline's) on a thread of
 * its own, which waits in the bulkhead's queue and then waits for the downstream: the shape of a
 * thread-per-request server. Uses a virtual thread per call on JDK 21 and later, and pooled platform threads (one
 * per call in progress) before. A timeout cannot free such a thread before the downstream answers (the wait is
 * not interruptible, as with most blocking clients): the call is reported as timed out when it returns.
 */
final class ThreadPerCallLauncher implements CallLauncher {

    private final Policy policy;
    private final CallClasses classes;
    private final SimulatedDownstream downstream;
    private final CancellationSignal endOfRun;
    private final RunMeasurements measurements;
    private final ExecutorService threads;
    private final boolean virtual;

    /**
     * @param policy the policies each call goes through, or {@code null} to call the downstream directly
     * @param classes gives each call its priority and weight and the policy bound to them, or {@code null} to make
     *     every call through {@code policy} without options
     * @param endOfRun cancelled when the run ends, to take every queued call out of the queue
     */
    ThreadPerCallLauncher(Policy policy, CallClasses classes, SimulatedDownstream downstream,
                          CancellationSignal endOfRun, RunMeasurements measurements) {
        this.policy = policy;
        this.classes = classes;
        this.downstream = downstream;
        this.endOfRun = endOfRun;
        this.measurements = measurements;
        ExecutorService virtualThreads = virtualThreadPerTaskExecutor();
        this.virtual = virtualThreads != null;
        this.threads = virtual ? virtualThreads : Executors.newCachedThreadPool(new PlatformThreads());
    }

    /** Returns {@code Executors.newVirtualThreadPerTaskExecutor()} on JDK 21+, {@code null} before. */
    private static ExecutorService virtualThreadPerTaskExecutor() {
        Method factory;
        try {
            factory = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        } catch (NoSuchMethodException beforeJdk21) {
            return null;
        }
        try {
            return (ExecutorService) factory.invoke(null);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot create virtual threads", e);
        }
    }

    @Override
    public void launch(long arrivalNanos, long workNanos, int lane, Priority priority, Runnable afterOutcome) {
        measurements.arrived();
        // Drawn on the launching thread, so that the n-th launch gets the n-th class.
        CallClasses.Call kind = classes == null ? null : classes.next(priority);
        Policy through = kind == null ? policy : kind.policy();
        try {
            threads.execute(() -> {
                Throwable failure = null;
                try {
                    if (through == null) {
                        downstream.call(workNanos).join();
                    } else {
                        through.call(() -> downstream.call(workNanos).join(), endOfRun);
                    }
                } catch (RuntimeException | Error outcome) {
                    failure = outcome;
                }
                measurements.finished(failure, arrivalNanos, kind, lane);
                if (afterOutcome != null) {
                    afterOutcome.run();
                }
            });
        } catch (RejectedExecutionException unexpected) {
            measurements.finished(unexpected, arrivalNanos, kind, lane);
        }
    }

    @Override
    public String describe() {
        return virtual ? "call on a virtual thread per call" : "call on a platform thread per call";
    }

    @Override
    public void close() {
        threads.shutdown();
        try {
            threads.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class PlatformThreads implements ThreadFactory {
        private final AtomicLong count = new AtomicLong();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "bulwark-sim-call-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
