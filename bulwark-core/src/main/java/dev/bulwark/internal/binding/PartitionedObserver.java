package dev.bulwark.internal.binding;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import java.util.Objects;
import java.util.function.Function;

/**
 * What both metrics back ends observe of a partitioned bulkhead's calls, and when: each call over all partitions
 * counted once, admitted, cancelled or rejected by {@link Rejection.Reason} (never by key, so a flood of keys adds no
 * series). The back end supplies only the increments and names the series; it reads the partition table's occupancy
 * itself.
 *
 * <p>Thread-safe when the increments are (both back ends' are); allocates nothing per event.
 */
public final class PartitionedObserver extends AttachedListener implements BulkheadListener {

    private final String description;
    private final Runnable admitted;
    private final Runnable cancelled;
    /** Indexed by {@link Rejection.Reason#ordinal()}. */
    private final Runnable[] rejected;

    /**
     * Creates the observer of one partitioned bulkhead.
     *
     * @param description what {@link #toString()} returns ("BulwarkMetrics partitioned-bulkhead listener", say)
     * @param admitted the increment of the admitted calls
     * @param cancelled the increment of the calls whose caller gave up while they waited
     * @param rejected the increment of the calls refused for each reason, asked once per reason in order
     */
    public PartitionedObserver(String description, Runnable admitted, Runnable cancelled,
                               Function<Rejection.Reason, Runnable> rejected) {
        this.description = Objects.requireNonNull(description, "description");
        this.admitted = Objects.requireNonNull(admitted, "admitted");
        this.cancelled = Objects.requireNonNull(cancelled, "cancelled");
        Rejection.Reason[] reasons = Rejection.Reason.values();
        this.rejected = new Runnable[reasons.length];
        for (Rejection.Reason reason : reasons) {
            this.rejected[reason.ordinal()] = Objects.requireNonNull(rejected.apply(reason), "rejected");
        }
    }

    @Override
    public void admitted(long waitedNanos, Priority priority) {
        admitted.run();
    }

    @Override
    public void rejected(Rejection rejection) {
        rejected[rejection.reason().ordinal()].run();
    }

    @Override
    public void cancelled(long waitedNanos, Priority priority) {
        cancelled.run();
    }

    @Override
    public String toString() {
        return description;
    }
}
