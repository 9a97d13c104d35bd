package dev.bulwark.internal.timer;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;

/**
 * Keeps user code off the timer thread. A wheel's worker ({@code bulwark-timer} for {@code Scheduler.shared()})
 * serves every timed wait, timeout and retry delay of the process: an overflow handler, a listener or a caller's
 * continuation that blocked or ran long there would delay every other deadline. So what a timer decides is decided
 * on the worker, at the deadline (a waiter's fate, a timeout's win over the call's end, the end of a retry delay),
 * and what follows from the decision that may reach user code (completing a caller's future, reporting to
 * listeners, calling an overflow handler, starting a granted or retried operation) is handed to
 * {@link ForkJoinPool#commonPool()}.
 *
 * <p>Anywhere else (a caller's thread, a releasing thread, a test driving a wheel by {@code advanceTo}, the thread
 * of a scheduler the user gave) the work runs at once, on the calling thread, as before: asking costs one class test
 * of the current thread.
 */
public final class OffTimer {

    private OffTimer() {
    }

    /**
     * Runs {@code work} now, or, on a wheel's worker thread, hands it to the common pool.
     *
     * @param work what may reach user code
     */
    public static void run(Runnable work) {
        if (onTimerThread()) {
            handOff(work);
        } else {
            work.run();
        }
    }

    /**
     * Whether the calling thread is a wheel's worker, where {@link #handOff(Runnable)} is needed. For hot paths that
     * would otherwise allocate the work for {@link #run} on every call (a grant's dispatch, a listener event).
     *
     * @return {@code true} on the timer thread
     */
    public static boolean onTimerThread() {
        return TimerWheel.onWorkerThread();
    }

    /**
     * Hands {@code work} to the common pool. Should the pool refuse (it does not while the VM runs, short of running
     * out of memory for its queue), the work runs on the calling thread: late but not lost, as nothing else would
     * complete the caller's future.
     *
     * @param work what may reach user code
     */
    public static void handOff(Runnable work) {
        try {
            ForkJoinPool.commonPool().execute(work);
        } catch (RejectedExecutionException refused) {
            work.run();
        }
    }
}
