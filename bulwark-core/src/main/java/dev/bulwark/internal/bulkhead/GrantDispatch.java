package dev.bulwark.internal.bulkhead;

import dev.bulwark.internal.timer.OffTimer;
import java.util.ArrayDeque;

/**
 * Starts granted asynchronous waiters without unbounded recursion.
 *
 * <p>A granted async waiter starts its operation on the thread that freed the slot. If that operation's stage
 * is already complete, starting it frees the slot again, which grants the next waiter, which starts its
 * operation... Done by plain calls, a queue of 100 000 such waiters would overflow the stack. Instead each
 * thread keeps a trampoline: the outermost dispatch on a thread runs a loop, and any dispatch that happens
 * inside it (on the same thread) only appends to that loop's work list.
 *
 * <p>Invariant: on each thread, at most one loop runs at a time, and every waiter appended to its list is
 * started by that loop before the loop returns. The timer thread runs no loop: a grant made there (a waiter that
 * timed out or was cancelled by a timer uncovered the next one) is handed to the common pool ({@link OffTimer}).
 */
final class GrantDispatch {

    /**
     * The logger, looked up when first needed: finding the logging back end costs milliseconds (a service look-up)
     * that neither {@code build()} nor a caller's first call should pay for a failure that may never come.
     */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger("dev.bulwark.Bulkhead");

        private Log() {
        }
    }

    /**
     * A granted waiter whose delivery (starting its operation, or completing its future with a permit) this
     * trampoline runs; the async waiter. An interface here so that the dispatch does not import the waiter that
     * calls it.
     */
    interface Delivery {

        /** Starts the granted call: uses or releases its slots on every path, and never throws. */
        void startGranted();
    }

    private static final ThreadLocal<Trampoline> TRAMPOLINE = ThreadLocal.withInitial(Trampoline::new);

    private GrantDispatch() {
    }

    static void dispatch(Delivery waiter) {
        if (OffTimer.onTimerThread()) {
            // A timeout or a timer's cancel unlinked a waiter and so uncovered this grant: the operation (or the
            // permit's future, with its continuations) is user code, which never runs on the timer thread.
            OffTimer.handOff(() -> dispatch(waiter));
            return;
        }
        Trampoline trampoline = TRAMPOLINE.get();
        if (trampoline.running) {
            trampoline.pending.addLast(waiter);
            return;
        }
        trampoline.running = true;
        try {
            Delivery next = waiter;
            do {
                try {
                    next.startGranted();
                } catch (Throwable unexpected) {
                    // start() releases its slot on every path; reaching here means a bug or a VM error. Keep
                    // draining so that the other granted waiters are not stranded with their slots.
                    Log.LOGGER.log(System.Logger.Level.ERROR, "Starting a granted asynchronous call failed",
                            unexpected);
                }
            } while ((next = trampoline.pending.pollFirst()) != null);
        } finally {
            trampoline.running = false;
        }
    }

    /**
     * Starts the granted waiters this thread's trampoline holds back, if any. Called by a thread that is about to
     * park in a bulkhead: user code running inside the trampoline (a callback on a completed future, say) may make
     * a blocking call, and parking while a waiter granted to this very loop holds a slot would deadlock if that
     * slot is the one being waited for.
     */
    static void runPendingBeforeBlocking() {
        Trampoline trampoline = TRAMPOLINE.get();
        Delivery next;
        while (trampoline.running && (next = trampoline.pending.pollFirst()) != null) {
            try {
                next.startGranted();
            } catch (Throwable unexpected) {
                Log.LOGGER.log(System.Logger.Level.ERROR, "Starting a granted asynchronous call failed",
                        unexpected);
            }
        }
    }

    private static final class Trampoline {
        final ArrayDeque<Delivery> pending = new ArrayDeque<>();
        boolean running;
    }
}
