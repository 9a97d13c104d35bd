package dev.bulwark.testing;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts a bulkhead's events, to assert exact admitted, rejected, cancelled and released totals (every admitted call
 * releases its slot exactly once). Thread-safe. Shared by the test suites of the modules (bulwark-core's test jar).
 */
public final class CountingListener implements BulkheadListener {

    public final AtomicInteger admitted = new AtomicInteger();
    public final AtomicInteger rejected = new AtomicInteger();
    public final AtomicInteger cancelled = new AtomicInteger();
    public final AtomicInteger released = new AtomicInteger();

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

    @Override
    public String toString() {
        return "admitted " + admitted + ", rejected " + rejected + ", cancelled " + cancelled + ", released "
                + released;
    }
}
