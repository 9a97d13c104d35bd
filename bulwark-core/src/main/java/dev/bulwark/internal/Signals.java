package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;

/** Deriving signals and waiting on them. */
public final class Signals {

    private static final CancellationSignal.Registration NOTHING = () -> { };

    private Signals() {
    }

    /**
     * Makes {@code child} follow {@code parent}: when the parent is cancelled, the child is cancelled with the
     * parent's reason. Close the returned registration when the child is no longer in use, so that a long-lived
     * parent does not accumulate listeners.
     *
     * @param parent the caller's signal
     * @param child a signal derived for inner steps
     * @return the link, to close when done
     */
    public static CancellationSignal.Registration link(CancellationSignal parent, CancellationSignal child) {
        if (!parent.canBeCancelled()) {
            return NOTHING;
        }
        return parent.onCancel(() -> {
            if (parent.reason().isPresent()) {
                child.cancel(parent.reason().get());
            } else {
                child.cancel();
            }
        });
    }

    /**
     * Makes the exception that ends a call cancelled by {@code signal}.
     *
     * @param message what was cancelled
     * @param signal the cancelled signal, whose reason becomes the cause
     * @return a new exception
     */
    public static CancellationException cancelled(String message, CancellationSignal signal) {
        CancellationException exception = new CancellationException(message);
        signal.reason().ifPresent(exception::initCause);
        return exception;
    }

    /**
     * Makes the exception that ends a call whose thread was interrupted while it waited.
     *
     * @param message what was interrupted
     * @return a new exception caused by an {@link InterruptedException}
     */
    public static CancellationException interrupted(String message) {
        CancellationException exception = new CancellationException(message);
        exception.initCause(new InterruptedException(message));
        return exception;
    }

    /**
     * Parks the calling thread for {@code nanos}, waking early when {@code signal} is cancelled or the thread is
     * interrupted. Never pins a virtual thread.
     *
     * @param nanos how long to wait
     * @param signal ends the wait when cancelled
     * @param ticker the clock the wait is measured on
     * @param what names the wait in exception messages
     * @throws CancellationException when the signal was cancelled (its reason as cause) or the thread interrupted
     *     (an {@link InterruptedException} as cause; the interrupt status is restored)
     */
    public static void sleep(long nanos, CancellationSignal signal, dev.bulwark.Ticker ticker, String what) {
        Thread thread = Thread.currentThread();
        CancellationSignal.Registration wakeUp = signal.canBeCancelled()
                ? signal.onCancel(() -> LockSupport.unpark(thread)) : NOTHING;
        try {
            long deadline = ticker.read() + nanos;
            for (;;) {
                if (signal.isCancelled()) {
                    throw cancelled(what + " was cancelled", signal);
                }
                if (Thread.interrupted()) {
                    thread.interrupt();
                    throw interrupted(what + " was interrupted");
                }
                long remaining = deadline - ticker.read();
                if (remaining <= 0L) {
                    return;
                }
                LockSupport.parkNanos(Signals.class, remaining);
            }
        } finally {
            wakeUp.close();
        }
    }
}
