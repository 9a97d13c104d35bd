package dev.bulwark;

import dev.bulwark.internal.SpinThenParkLock;
import dev.bulwark.internal.util.VarHandles;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A one-shot, cooperative cancellation signal that a caller passes to a policy to be able to give up on a
 * call: a bulkhead call that is still queued leaves the queue at once when its signal is cancelled.
 *
 * <p>A signal starts active and can be cancelled once: the first {@link #cancel()} or
 * {@link #cancel(Throwable)} wins and fixes the {@link #reason() reason}; later calls change nothing.
 * Listeners registered with {@link #onCancel(Runnable)} run exactly once, on the thread that cancels (or at
 * once, on the registering thread, when the signal is already cancelled). Listeners never run while any lock
 * is held, and one listener that throws does not stop the others: its failure is logged through
 * {@link System.Logger} and the cancellation goes on.
 *
 * <p>Thread-safe. Checking {@link #isCancelled()} is one volatile read; registering and unregistering
 * listeners takes a short critical section on a lock (created on first use; a contender spins briefly for the
 * holder before it parks, so an event loop registering a listener rarely parks), and a virtual thread never pins
 * its carrier here.
 */
public final class CancellationSignal {

    /**
     * The logger, looked up when first needed: finding the logging back end costs milliseconds (a service look-up)
     * that neither {@code build()} nor a caller's first call should pay for a failure that may never come.
     */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger(CancellationSignal.class.getName());

        private Log() {
        }
    }

    /** Marks a signal cancelled without a reason; never escapes this class. */
    private static final Object CANCELLED_WITHOUT_REASON = new Object();

    private static final CancellationSignal NONE = new CancellationSignal(false);

    private static final Registration NO_REGISTRATION = () -> { };

    private final boolean cancellable;

    /** {@code null} while active; then the reason (a Throwable) or {@link #CANCELLED_WITHOUT_REASON}. */
    private volatile @Nullable Object outcome;

    /**
     * Guards the listener list. Created on first use (many signals never get a listener, or get cancelled
     * without one): see {@link #lock()}.
     */
    private volatile @Nullable SpinThenParkLock lock;
    private @Nullable ListenerNode first;
    private @Nullable ListenerNode last;

    private static final java.lang.invoke.VarHandle LOCK =
            VarHandles.field(java.lang.invoke.MethodHandles.lookup(), "lock", SpinThenParkLock.class);

    private CancellationSignal(boolean cancellable) {
        this.cancellable = cancellable;
    }

    /** Returns the lock, creating it once: racing creators agree on the first one installed by CAS. */
    private SpinThenParkLock lock() {
        SpinThenParkLock current = lock;
        if (current != null) {
            return current;
        }
        SpinThenParkLock created = new SpinThenParkLock();
        return LOCK.compareAndSet(this, null, created) ? created : lock;
    }

    /**
     * Creates a new, active signal.
     *
     * @return a signal that nobody has cancelled yet
     */
    public static CancellationSignal create() {
        return new CancellationSignal(true);
    }

    /**
     * Returns the signal that never cancels. It costs nothing to pass: policies skip all cancellation
     * bookkeeping for it. {@link #cancel()} on it does nothing and returns {@code false}.
     *
     * @return the shared never-cancelling signal
     */
    public static CancellationSignal none() {
        return NONE;
    }

    /**
     * Returns whether this signal can ever be cancelled: {@code false} only for {@link #none()}.
     *
     * @return {@code true} unless this is the never-cancelling signal
     */
    public boolean canBeCancelled() {
        return cancellable;
    }

    /**
     * Cancels this signal without a reason.
     *
     * @return {@code true} when this call cancelled the signal, {@code false} when it was already cancelled
     *     (or is {@link #none()})
     */
    public boolean cancel() {
        return complete(CANCELLED_WITHOUT_REASON);
    }

    /**
     * Cancels this signal with a reason, which policies attach as the cause of the
     * {@link java.util.concurrent.CancellationException} they throw.
     *
     * @param reason why the caller gave up
     * @return {@code true} when this call cancelled the signal, {@code false} when it was already cancelled
     *     (or is {@link #none()}); the first reason is kept
     * @throws NullPointerException when {@code reason} is {@code null}
     */
    public boolean cancel(Throwable reason) {
        return complete(Objects.requireNonNull(reason, "reason"));
    }

    /**
     * Returns whether this signal has been cancelled. One volatile read.
     *
     * @return {@code true} once cancelled
     */
    public boolean isCancelled() {
        return outcome != null;
    }

    /**
     * Returns the reason given to the winning {@link #cancel(Throwable)}, if any.
     *
     * @return the reason, or empty when active or cancelled without a reason
     */
    public Optional<Throwable> reason() {
        Object current = outcome;
        return current instanceof Throwable ? Optional.of((Throwable) current) : Optional.empty();
    }

    /**
     * Registers a listener that runs once when this signal is cancelled. When the signal is already
     * cancelled the listener runs at once, on the calling thread, before this method returns.
     *
     * <p>Close the returned registration when the listener is no longer needed, so that a long-lived signal
     * does not keep it reachable. A listener whose registration is closed after the cancellation has begun may
     * still run once.
     *
     * @param listener what to run on cancellation
     * @return a registration whose {@link Registration#close()} unregisters the listener
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public Registration onCancel(Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        if (!cancellable) {
            return NO_REGISTRATION;
        }
        if (outcome == null) {
            ListenerNode node = new ListenerNode(this, listener);
            SpinThenParkLock lock = lock();
            lock.lock();
            try {
                // Re-checked under the lock: cancel() detaches the list under the same lock, so a node linked
                // here is guaranteed to be seen by the cancelling thread.
                if (outcome == null) {
                    node.linkLast();
                    return node;
                }
            } finally {
                lock.unlock();
            }
        }
        runListener(listener);
        return NO_REGISTRATION;
    }

    private boolean complete(Object newOutcome) {
        if (!cancellable || outcome != null) {
            return false;
        }
        ListenerNode detached;
        SpinThenParkLock lock = lock();
        lock.lock();
        try {
            if (outcome != null) {
                return false;
            }
            outcome = newOutcome;
            detached = first;
            // Unlink every node so closing a registration later is a no-op and nothing stays reachable.
            for (ListenerNode node = first; node != null; node = node.next) {
                node.linked = false;
            }
            first = null;
            last = null;
        } finally {
            lock.unlock();
        }
        // Listeners run outside the lock, in registration order. The detached chain's next pointers are no
        // longer written by anyone (close() sees linked == false), so walking it here is safe.
        for (ListenerNode node = detached; node != null; node = node.next) {
            runListener(node.listener);
        }
        return true;
    }

    private static void runListener(Runnable listener) {
        try {
            listener.run();
        } catch (Throwable failure) {
            Log.LOGGER.log(System.Logger.Level.WARNING, "A cancellation listener threw; the other listeners still ran",
                    failure);
        }
    }

    @Override
    public String toString() {
        if (!cancellable) {
            return "CancellationSignal[none]";
        }
        Object current = outcome;
        if (current == null) {
            return "CancellationSignal[active]";
        }
        return current instanceof Throwable ? "CancellationSignal[cancelled: " + current + "]"
                : "CancellationSignal[cancelled]";
    }

    /**
     * A listener's registration on a {@link CancellationSignal}. Thread-safe and idempotent.
     */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {

        /**
         * Unregisters the listener. Does nothing when it already ran or was already unregistered. Never throws.
         */
        @Override
        void close();
    }

    /** A listener in the signal's doubly linked list; all link fields are guarded by the signal's lock. */
    private static final class ListenerNode implements Registration {
        private final CancellationSignal signal;
        private final Runnable listener;
        private @Nullable ListenerNode previous;
        private @Nullable ListenerNode next;
        private boolean linked;

        ListenerNode(CancellationSignal signal, Runnable listener) {
            this.signal = signal;
            this.listener = listener;
        }

        void linkLast() {
            ListenerNode tail = signal.last;
            previous = tail;
            if (tail == null) {
                signal.first = this;
            } else {
                tail.next = this;
            }
            signal.last = this;
            linked = true;
        }

        @Override
        public void close() {
            SpinThenParkLock lock = signal.lock();
            lock.lock();
            try {
                if (!linked) {
                    return;
                }
                linked = false;
                if (previous == null) {
                    signal.first = next;
                } else {
                    previous.next = next;
                }
                if (next == null) {
                    signal.last = previous;
                } else {
                    next.previous = previous;
                }
                previous = null;
                next = null;
            } finally {
                lock.unlock();
            }
        }
    }
}
