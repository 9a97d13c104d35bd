package dev.bulwark;

import dev.bulwark.internal.Names;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The configuration of a bulkhead: an immutable value made by {@link Bulkhead.Builder#config()}. Build a
 * bulkhead from it with {@link Bulkhead#of(BulkheadConfig)}, derive a variant with {@link #toBuilder()}.
 *
 * <p>Two configurations are equal when their name, limits, maximum wait, queue order and reserves are equal and they
 * hold the same overflow handler, listeners, ticker, scheduler and adaptive-limit instances. Thread-safe (immutable).
 */
public final class BulkheadConfig {

    private final String name;
    private final int maxConcurrency;
    private final int maxQueue;
    private final @Nullable Duration maxWait;
    private final @Nullable Consumer<? super Rejection> rejectionHandler;
    private final List<BulkheadListener> listeners;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final QueueOrder queueOrder;
    private final AdaptiveLimit adaptiveLimit;
    private final int[] reserved;

    BulkheadConfig(Bulkhead.Builder builder) {
        this.name = Names.orNext(builder.name, "bulkhead");
        this.maxConcurrency = builder.maxConcurrency;
        this.maxQueue = builder.maxQueue;
        this.maxWait = builder.maxWait;
        this.rejectionHandler = builder.rejectionHandler;
        this.listeners = List.copyOf(builder.listeners);
        this.ticker = builder.ticker;
        this.scheduler = builder.scheduler;
        this.queueOrder = builder.queueOrder;
        this.adaptiveLimit = builder.adaptiveLimit;
        this.reserved = builder.reserved.clone();
    }

    /**
     * Returns the bulkhead's name, used in rejections, exception messages and metrics.
     *
     * @return the name, never blank
     */
    public String name() {
        return name;
    }

    /**
     * Returns the maximum number of calls that hold a slot at once.
     *
     * @return at least 1
     */
    public int maxConcurrency() {
        return maxConcurrency;
    }

    /**
     * Returns the maximum number of calls that wait for a slot.
     *
     * @return at least 0; 0 means a call is refused at once when no slot is free
     */
    public int maxQueue() {
        return maxQueue;
    }

    /**
     * Returns the longest a call waits for a slot before it is refused.
     *
     * @return the positive maximum wait, or empty when a call may wait without a time bound
     */
    public Optional<Duration> maxWait() {
        return Optional.ofNullable(maxWait);
    }

    /**
     * Returns the overflow handler, called with every {@link Rejection}.
     *
     * @return the handler, or empty when none was set
     */
    public Optional<Consumer<? super Rejection>> rejectionHandler() {
        return Optional.ofNullable(rejectionHandler);
    }

    /**
     * Returns the listeners, in registration order.
     *
     * @return an unmodifiable list, empty when none was registered
     */
    public List<BulkheadListener> listeners() {
        return listeners;
    }

    /**
     * Returns the source of time for waits.
     *
     * @return the ticker, {@link Ticker#system()} unless one was set
     */
    public Ticker ticker() {
        return ticker;
    }

    /**
     * Returns the scheduler that times out asynchronous waits.
     *
     * @return the scheduler, {@link Scheduler#shared()} unless one was set
     */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Returns the order in which waiting calls get freed slots.
     *
     * @return the queue order, {@link QueueOrder#FIFO} unless set
     */
    public QueueOrder queueOrder() {
        return queueOrder;
    }

    /**
     * Returns the adaptive limit, when the concurrency limit adapts to observed outcomes.
     *
     * @return the adaptive limit, or empty for a fixed limit
     */
    public Optional<AdaptiveLimit> adaptiveLimit() {
        return Optional.ofNullable(adaptiveLimit);
    }

    /**
     * Returns the slots reserved for {@code priority}: only calls of that priority or a higher one may take them
     * (see {@link Bulkhead.Builder#reserve(Priority, int)}).
     *
     * @param priority the priority
     * @return at least 0; 0 when none was reserved
     * @throws NullPointerException when {@code priority} is {@code null}
     */
    public int reserved(Priority priority) {
        return reserved[Objects.requireNonNull(priority, "priority").ordinal()];
    }

    /**
     * Returns the headroom of {@code priority}: how many slots must stay free after a call of that priority takes
     * its own, the sum of the reserves of all higher priorities. {@link Priority#CRITICAL}'s is always 0.
     *
     * @param priority the priority
     * @return at least 0
     * @throws NullPointerException when {@code priority} is {@code null}
     */
    public int headroom(Priority priority) {
        int level = Objects.requireNonNull(priority, "priority").ordinal();
        int sum = 0;
        for (int higher = 0; higher < level; higher++) {
            sum += reserved[higher];
        }
        return sum;
    }

    /**
     * Returns a builder holding this configuration, to derive a variant.
     *
     * @return a new builder; changing it does not change this configuration
     */
    public Bulkhead.Builder toBuilder() {
        return new Bulkhead.Builder(this);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof BulkheadConfig)) {
            return false;
        }
        BulkheadConfig that = (BulkheadConfig) other;
        return maxConcurrency == that.maxConcurrency && maxQueue == that.maxQueue && name.equals(that.name)
                && Objects.equals(maxWait, that.maxWait) && rejectionHandler == that.rejectionHandler
                && sameInstances(listeners, that.listeners) && ticker == that.ticker && scheduler == that.scheduler
                && queueOrder == that.queueOrder && adaptiveLimit == that.adaptiveLimit
                && java.util.Arrays.equals(reserved, that.reserved);
    }

    private static boolean sameInstances(List<?> left, List<?> right) {
        if (left.size() != right.size()) {
            return false;
        }
        for (int i = 0; i < left.size(); i++) {
            if (left.get(i) != right.get(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, maxConcurrency, maxQueue, maxWait) * 31 + java.util.Arrays.hashCode(reserved);
    }

    @Override
    public String toString() {
        return "BulkheadConfig[name=" + name + ", maxConcurrency=" + maxConcurrency + ", maxQueue=" + maxQueue
                + ", maxWait=" + (maxWait == null ? "unbounded" : maxWait) + ", rejectionHandler="
                + (rejectionHandler == null ? "none" : "set") + ", listeners=" + listeners.size() + ", queueOrder="
                + queueOrder + (adaptiveLimit == null ? "" : ", adaptive=" + adaptiveLimit) + reservesText() + "]";
    }

    private String reservesText() {
        StringBuilder text = new StringBuilder();
        for (Priority priority : Priority.values()) {
            if (reserved[priority.ordinal()] != 0) {
                text.append(text.length() == 0 ? ", reserved=" : ",").append(priority).append(':')
                        .append(reserved[priority.ordinal()]);
            }
        }
        return text.toString();
    }
}
