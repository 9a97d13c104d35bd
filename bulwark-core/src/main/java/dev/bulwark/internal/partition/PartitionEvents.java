package dev.bulwark.internal.partition;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Subscription;
import dev.bulwark.internal.util.ListenerList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The listeners of a partitioned bulkhead: they hear every partition's bulkhead and the partitioned bulkhead's own
 * refusals ({@code PARTITION_LIMIT}, {@code CLOSED}, and those of the fair-share queue).
 *
 * <h2>Design notes</h2>
 *
 * <p>One object is both the list and the listener each partition's bulkhead gets: it forwards every event to the
 * listeners attached at that moment. A partition's bulkhead gets it only once a listener exists, so that a
 * partitioned bulkhead nobody listens to costs what it did (a bulkhead with a listener reads the clock to time its
 * calls). Detaching the last listener leaves it on the partitions that have it (forwarding to nobody) until they are
 * evicted; partitions created afterwards do not get it.
 *
 * <p><b>Invariant.</b> Once {@link #add} has returned, every partition that is live, and every one created later
 * while a listener is attached, forwards its events here. {@link #add} writes the list, then walks the live
 * partitions; a creation attaches before it offers its partition to the map and checks again after the offer. Each
 * side writes before it reads (the list is a {@link ListenerList}, one volatile field; the map a
 * {@code ConcurrentHashMap}), so at least one of them sees the other; attaching twice is prevented by the
 * partition's own flag ({@link Partition#markHeard()}).
 */
public final class PartitionEvents implements BulkheadListener {

    private final ListenerList<BulkheadListener> listeners;

    /**
     * Creates an empty list.
     *
     * @param name the partitioned bulkhead's name, for log messages about a listener that throws
     */
    public PartitionEvents(String name) {
        this.listeners = new ListenerList<>("dev.bulwark", "", name, List.of());
    }

    /**
     * Attaches a listener and makes every live partition forward to it.
     *
     * @param listener the listener, not {@code null}
     * @param live the live partitions
     * @return detaches the listener
     */
    Subscription add(BulkheadListener listener, Iterable<Partition> live) {
        Subscription subscription = listeners.add(listener);
        for (Partition partition : live) {
            attach(partition);
        }
        return subscription;
    }

    /**
     * Makes a partition forward its bulkhead's events here, when a listener exists and it does not yet.
     *
     * @param partition a partition, live or about to be offered to the map
     */
    void attach(Partition partition) {
        if (!listeners.isEmpty() && partition.markHeard()) {
            partition.bulkhead().addListener(this);
        }
    }

    /**
     * Returns the handler of the partitioned bulkhead's own refusals: tells the listeners, then the user's handler.
     *
     * @param handler the overflow handler given to the builder, or {@code null}
     * @return the combined handler
     */
    public Consumer<Rejection> reporting(@Nullable Consumer<? super Rejection> handler) {
        return rejection -> {
            rejected(rejection);
            if (handler != null) {
                handler.accept(rejection);
            }
        };
    }

    @Override
    public void admitted(long waitedNanos, Priority priority) {
        listeners.each("admitted", listener -> listener.admitted(waitedNanos, priority));
    }

    @Override
    public void rejected(Rejection rejection) {
        listeners.each("rejected", BulkheadListener::rejected, rejection);
    }

    @Override
    public void cancelled(long waitedNanos, Priority priority) {
        listeners.each("cancelled", listener -> listener.cancelled(waitedNanos, priority));
    }

    @Override
    public void released(long executionNanos) {
        listeners.each("released", listener -> listener.released(executionNanos));
    }

    @Override
    public String toString() {
        return "PartitionEvents";
    }
}
