package dev.bulwark.internal.binding;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.stats.CallTally;
import java.util.Objects;
import java.util.function.IntFunction;

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
    /** Indexed by {@link CallTally}'s outcomes. */
    private final Runnable[] calls = new Runnable[CallTally.OUTCOMES];

    /**
     * Creates the observer of one partitioned bulkhead.
     *
     * @param description what {@link #toString()} returns ("BulwarkMetrics partitioned-bulkhead listener", say)
     * @param calls the increment of the calls that ended with each of {@link CallTally}'s outcomes (admitted,
     *     cancelled, refused for each reason), asked once per outcome in order
     */
    public PartitionedObserver(String description, IntFunction<Runnable> calls) {
        this.description = Objects.requireNonNull(description, "description");
        for (int outcome = 0; outcome < CallTally.OUTCOMES; outcome++) {
            this.calls[outcome] = Objects.requireNonNull(calls.apply(outcome), "calls");
        }
    }

    @Override
    public void admitted(long waitedNanos, Priority priority) {
        calls[CallTally.ADMITTED].run();
    }

    @Override
    public void rejected(Rejection rejection) {
        calls[CallTally.outcomeOf(rejection.reason())].run();
    }

    @Override
    public void cancelled(long waitedNanos, Priority priority) {
        calls[CallTally.CANCELLED].run();
    }

    @Override
    public String toString() {
        return description;
    }
}
