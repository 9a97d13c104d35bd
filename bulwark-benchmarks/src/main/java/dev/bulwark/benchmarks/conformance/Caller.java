package dev.bulwark.benchmarks.conformance;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * A call made on a thread of its own, so that a check can hold slots, queue waiters and see whether a call blocks.
 * Its result or failure is read after {@link #join()}.
 */
final class Caller {

    /** What {@link #awaitEndedOrParked(Duration)} saw. */
    enum State { ENDED, PARKED, NEITHER }

    private final Thread thread;
    private volatile Object result;
    private volatile Throwable failure;
    private volatile boolean ended;

    private Caller(String name, Callable<Object> call) {
        this.thread = new Thread(() -> {
            try {
                result = call.call();
            } catch (Throwable thrown) {
                failure = thrown;
            } finally {
                ended = true;
            }
        }, "conformance-" + name);
        thread.setDaemon(true);
    }

    static Caller start(String name, Callable<Object> call) {
        Caller caller = new Caller(name, call);
        caller.thread.start();
        return caller;
    }

    String name() {
        return thread.getName().substring("conformance-".length());
    }

    boolean ended() {
        return ended;
    }

    Object result() {
        return result;
    }

    Throwable failure() {
        return failure;
    }

    String outcome() {
        if (!ended) {
            return "nothing yet";
        }
        return failure != null ? "exception " + failure : String.valueOf(result);
    }

    String stateDescription() {
        return ended ? "it returned " + outcome() : "its thread is " + thread.getState();
    }

    /**
     * Waits until the call has returned, or its thread is parked (waiting, timed waiting, or blocked on a monitor)
     * inside it. Polls the thread's state: a deterministic observation, not a timing assumption.
     */
    State awaitEndedOrParked(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < deadline) {
            if (ended) {
                return State.ENDED;
            }
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                    || state == Thread.State.BLOCKED) {
                // Re-read: the call may have ended between the two reads, and an ended call is not parked.
                return ended ? State.ENDED : State.PARKED;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return ended ? State.ENDED : State.NEITHER;
    }

    /** Waits for the call to end; a call that does not end within the patience is left to its daemon thread. */
    void join() throws InterruptedException {
        thread.join(TimeUnit.NANOSECONDS.toMillis(ConformanceCheck.PATIENCE.toNanos()));
    }
}
