package dev.bulwark.grpc;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts a bulkhead's events, to assert exact admitted/rejected/cancelled/released totals. */
final class CountingListener implements BulkheadListener {

    final AtomicInteger admitted = new AtomicInteger();
    final AtomicInteger rejected = new AtomicInteger();
    final AtomicInteger cancelled = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();

    @Override
    public void admitted(long waitedNanos) {
        admitted.incrementAndGet();
    }

    @Override
    public void rejected(Rejection rejection) {
        rejected.incrementAndGet();
    }

    @Override
    public void cancelled(long waitedNanos) {
        cancelled.incrementAndGet();
    }

    @Override
    public void released(long executionNanos) {
        released.incrementAndGet();
    }
}
