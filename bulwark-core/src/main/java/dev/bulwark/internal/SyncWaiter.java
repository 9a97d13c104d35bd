package dev.bulwark.internal;

import dev.bulwark.CancellationSignal;
import java.util.concurrent.locks.LockSupport;

/** A waiter whose owner is a thread parked on it. */
final class SyncWaiter extends Waiter implements Runnable {

    final Thread thread;

    SyncWaiter(InProcessBulkhead bulkhead, CancellationSignal signal, long enqueuedAt, long maxWaitNanos) {
        super(bulkhead, signal, enqueuedAt, maxWaitNanos);
        this.thread = Thread.currentThread();
    }

    @Override
    void granted() {
        LockSupport.unpark(thread);
    }

    @Override
    void evicted() {
        // The owner builds the rejection and runs the handler on its own thread when it wakes.
        LockSupport.unpark(thread);
    }

    /** The signal's cancellation listener: runs on the cancelling thread. */
    @Override
    public void run() {
        if (tryAbandon(CANCELLED)) {
            bulkhead.removeAbandoned(this);
            LockSupport.unpark(thread);
        }
    }
}
