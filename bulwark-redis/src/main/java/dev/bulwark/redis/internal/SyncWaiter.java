package dev.bulwark.redis.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Scheduler;
import dev.bulwark.internal.spi.FakeTickerWakeUp;
import java.util.concurrent.locks.LockSupport;

/**
 * A waiter whose owner is a thread parked on it. {@link #await} is the whole synchronous acquire: register, send
 * the acquire, park until the fate is decided (the parked thread times its own maximum wait once the reply said
 * "queued"), then act on it. An interrupt while the acquire is in flight is held back: a call admitted at once
 * runs (as in-process), a call that has to queue is cancelled by it.
 */
final class SyncWaiter extends RemoteWaiter implements Runnable {

    private final Thread thread;

    SyncWaiter(ClusterBulkhead bulkhead, String id, int weight, Priority priority, CancellationSignal signal,
               long enqueuedAt) {
        super(bulkhead, id, weight, priority, signal, enqueuedAt);
        this.thread = Thread.currentThread();
    }

    /**
     * Takes a permit of {@code weight} slots of {@code bulkhead} for the calling thread under the new id {@code id}
     * (which carries the weight), waiting at {@code priority} in the
     * cluster-wide queue if needed; returns it, or throws.
     */
    static Permit await(ClusterBulkhead bulkhead, String id, int weight, Priority priority,
                        CancellationSignal signal) {
        SyncWaiter waiter = new SyncWaiter(bulkhead, id, weight, priority, signal, bulkhead.ticker.read());
        bulkhead.join(waiter, true);
        CancellationSignal.Registration registration = signal.canBeCancelled() ? signal.onCancel(waiter) : null;
        // An interrupt while the acquire is in flight is held back: a call admitted at once runs (as in-process),
        // a call that has to queue is cancelled by it.
        boolean interruptPending = false;
        boolean interruptedWhileQueued = false;
        Scheduler.Cancellable wake = null;
        try {
            for (;;) {
                int status = waiter.status();
                if (status == RemoteWaiter.JOINING) {
                    LockSupport.park(bulkhead);
                    interruptPending |= Thread.interrupted();
                } else if (status == RemoteWaiter.WAITING) {
                    if (interruptPending || Thread.interrupted()) {
                        interruptPending = false;
                        interruptedWhileQueued = true;
                        bulkhead.abandon(waiter, RemoteWaiter.CANCELLED);
                        continue;
                    }
                    long maxWait = waiter.maxWaitNanos;
                    if (maxWait > 0) {
                        long remaining = waiter.enqueuedAt + maxWait - bulkhead.ticker.read();
                        if (remaining <= 0) {
                            bulkhead.abandon(waiter, RemoteWaiter.TIMED_OUT);
                            continue;
                        }
                        wake = FakeTickerWakeUp.rearm(bulkhead.ticker, bulkhead.scheduler, waiter.thread, wake,
                                remaining);
                        LockSupport.parkNanos(bulkhead, remaining);
                    } else {
                        LockSupport.park(bulkhead);
                    }
                } else {
                    break;
                }
            }
        } finally {
            if (registration != null) {
                registration.close();
            }
            if (wake != null) {
                wake.cancel();
            }
            if (interruptPending || interruptedWhileQueued) {
                Thread.currentThread().interrupt();
            }
        }
        return bulkhead.settle(waiter, interruptedWhileQueued || signal.isCancelled(), interruptedWhileQueued);
    }

    @Override
    void decided() {
        LockSupport.unpark(thread);
    }

    @Override
    void nowWaiting() {
        // The parked thread times its own wait; wake it so it picks up the maximum wait from the reply.
        LockSupport.unpark(thread);
    }

    /** The signal's cancellation listener: runs on the cancelling thread. */
    @Override
    public void run() {
        bulkhead.abandon(this, CANCELLED);
    }
}
