package dev.bulwark.cli.internal.sim;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Collects what the bulkhead under test reports through the public {@link BulkheadListener} interface: queue
 * waits go to the run's latency histogram, and the events are counted so that the report (and the tests) can
 * check them against the outcomes the callers saw. Thread-safe: the bulkhead calls it from many threads.
 */
public final class BulkheadEventCollector implements BulkheadListener {

    private final RunMeasurements measurements;
    private final AtomicLong admitted = new AtomicLong();
    private final AtomicLong admittedAfterWaiting = new AtomicLong();
    private final AtomicLong rejectedQueueFull = new AtomicLong();
    private final AtomicLong rejectedWaitTimeout = new AtomicLong();
    private final AtomicLong rejectedEvicted = new AtomicLong();
    private final AtomicLong rejectedOtherwise = new AtomicLong();
    private final AtomicLong cancelledWhileQueued = new AtomicLong();
    private final AtomicLong released = new AtomicLong();

    /**
     * Creates a collector that records into {@code measurements}.
     *
     * @param measurements the run's measurements
     */
    public BulkheadEventCollector(RunMeasurements measurements) {
        this.measurements = measurements;
    }

    @Override
    public void admitted(long waitedNanos) {
        admitted.incrementAndGet();
        if (waitedNanos != 0) {
            admittedAfterWaiting.incrementAndGet();
        }
        measurements.queueWaited(waitedNanos);
    }

    @Override
    public void rejected(Rejection rejection) {
        switch (rejection.reason()) {
            case QUEUE_FULL:
                rejectedQueueFull.incrementAndGet();
                break;
            case WAIT_TIMEOUT:
                rejectedWaitTimeout.incrementAndGet();
                break;
            case EVICTED:
                rejectedEvicted.incrementAndGet();
                break;
            default:
                // The simulated bulkhead is in-process: other reasons would be a fault, shown as such.
                rejectedOtherwise.incrementAndGet();
        }
        measurements.observeQueued(rejection.queuedCount());
    }

    @Override
    public void cancelled(long waitedNanos) {
        cancelledWhileQueued.incrementAndGet();
    }

    @Override
    public void released(long executionNanos) {
        released.incrementAndGet();
    }

    /**
     * Returns the counts so far.
     *
     * @return a snapshot
     */
    public BulkheadEventCounts counts() {
        return new BulkheadEventCounts(admitted.get(), admittedAfterWaiting.get(), rejectedQueueFull.get(),
                rejectedWaitTimeout.get(), rejectedEvicted.get(), rejectedOtherwise.get(), cancelledWhileQueued.get(),
                released.get());
    }
}
