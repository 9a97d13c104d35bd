package dev.bulwark.grpc;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts a bulkhead's events, to assert exact admitted/rejected/cancelled/released totals. */
final class CountingListener implements BulkheadListener {

    final AtomicInteger admitted = new AtomicInteger();
    final AtomicInteger rejected = new AtomicInteger();
    final AtomicInteger cancelled = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();

    @Override
    public void admitted(Duration waited) {
        admitted.incrementAndGet();
    }

    @Override
    public void rejected(Rejection rejection) {
        rejected.incrementAndGet();
    }

    @Override
    public void cancelled(Duration waited) {
        cancelled.incrementAndGet();
    }

    @Override
    public void released(Duration executionTime) {
        released.incrementAndGet();
    }
}
