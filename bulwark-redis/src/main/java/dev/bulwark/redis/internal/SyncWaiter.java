package dev.bulwark.redis.internal;

import dev.bulwark.CancellationSignal;
import java.util.concurrent.locks.LockSupport;

/** A waiter whose owner is a thread parked on it. */
final class SyncWaiter extends RemoteWaiter implements Runnable {

    private final Thread thread;

    SyncWaiter(ClusterBulkhead bulkhead, String id, CancellationSignal signal, long startedAt) {
        super(bulkhead, id, signal, startedAt);
        this.thread = Thread.currentThread();
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
