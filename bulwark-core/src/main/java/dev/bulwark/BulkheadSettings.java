package dev.bulwark;

import dev.bulwark.internal.spi.Arguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The settings and setters of {@link Bulkhead.Builder}, kept apart so that {@code Bulkhead.java} stays a readable
 * size; not a type of its own for users (package-private, sealed to the one builder). The setters are public, so
 * they are the builder's public API and javadoc shows them on {@link Bulkhead.Builder}. Not thread-safe.
 */
abstract sealed class BulkheadSettings permits Bulkhead.Builder {

    /** Set by {@link #name(String)} or copied from a config; {@code null}: a new default name at each config. */
    @Nullable String name;
    int maxConcurrency = 10;
    int maxQueue;
    @Nullable Duration maxWait;
    @Nullable Consumer<? super Rejection> rejectionHandler;
    final List<BulkheadListener> listeners = new ArrayList<>();
    Ticker ticker = Ticker.system();
    Scheduler scheduler = Scheduler.shared();
    QueueOrder queueOrder = QueueOrder.FIFO;
    AdaptiveLimit adaptiveLimit;
    /** Per priority ordinal: slots only that priority or a higher one may take. */
    final int[] reserved = new int[Priority.values().length];

    BulkheadSettings() {
    }

    BulkheadSettings(BulkheadConfig config) {
        this.name = config.name();
        this.maxConcurrency = config.maxConcurrency();
        this.maxQueue = config.maxQueue();
        this.maxWait = config.maxWait().orElse(null);
        this.rejectionHandler = config.rejectionHandler().orElse(null);
        this.listeners.addAll(config.listeners());
        this.ticker = config.ticker();
        this.scheduler = config.scheduler();
        this.queueOrder = config.queueOrder();
        this.adaptiveLimit = config.adaptiveLimit().orElse(null);
        for (Priority priority : Priority.values()) {
            this.reserved[priority.ordinal()] = config.reserved(priority);
        }
    }

    /**
     * Sets the name used in rejections, exception messages and metrics. Default: a new {@code bulkhead-N} for each
     * build (each {@link Bulkhead.Builder#config()}), so that two bulkheads built by one builder never share a name;
     * a builder made by {@link BulkheadConfig#toBuilder()} keeps the config's name.
     *
     * @param name a non-blank name
     * @return this builder
     * @throws NullPointerException when {@code name} is {@code null}
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public Bulkhead.Builder name(String name) {
        this.name = Arguments.requireName(name);
        return self();
    }

    /**
     * Sets how many calls may hold a slot at once. Default: 10.
     *
     * @param maxConcurrency at least 1
     * @return this builder
     * @throws IllegalArgumentException when {@code maxConcurrency} is less than 1
     */
    public Bulkhead.Builder maxConcurrency(int maxConcurrency) {
        this.maxConcurrency = Arguments.requireMaxConcurrency(maxConcurrency);
        return self();
    }

    /**
     * Sets how many calls may wait for a slot. Default: 0 (refuse at once when no slot is free).
     *
     * @param maxQueue at least 0; {@link Integer#MAX_VALUE} means no practical bound
     * @return this builder
     * @throws IllegalArgumentException when {@code maxQueue} is negative
     */
    public Bulkhead.Builder maxQueue(int maxQueue) {
        this.maxQueue = Arguments.requireMaxQueue(maxQueue);
        return self();
    }

    /**
     * Sets the longest a call waits for a slot before it is refused with
     * {@link Rejection.Reason#WAIT_TIMEOUT}. Default: no time bound.
     *
     * @param maxWait a positive duration
     * @return this builder
     * @throws NullPointerException when {@code maxWait} is {@code null}
     * @throws IllegalArgumentException when {@code maxWait} is zero or negative
     */
    public Bulkhead.Builder maxWait(Duration maxWait) {
        this.maxWait = Arguments.requirePositive(Objects.requireNonNull(maxWait, "maxWait"), "maxWait");
        return self();
    }

    /**
     * Sets the overflow handler, called with every {@link Rejection} before the refusal is thrown: on the
     * refused caller's thread; for an asynchronous waiter, on the thread that decided its refusal (the timer
     * thread for a timeout, the newcomer's for an eviction, the closing thread for a close, the thread lowering the
     * limit for a weight above it). Its result is
     * ignored; if it throws, the throwable is added as suppressed to the {@link BulkheadRejectedException}
     * and the bulkhead is unaffected. It is never called for cancellations.
     *
     * @param handler the handler
     * @return this builder
     * @throws NullPointerException when {@code handler} is {@code null}
     */
    public Bulkhead.Builder onRejected(Consumer<? super Rejection> handler) {
        this.rejectionHandler = Objects.requireNonNull(handler, "handler");
        return self();
    }

    /**
     * Adds a listener; several may be added and are called in the order added.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public Bulkhead.Builder listener(BulkheadListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return self();
    }

    /**
     * Sets the source of time for waits (for tests). Default: {@link Ticker#system()}. Under any other ticker a
     * waiting thread is also woken by the bulkhead's {@linkplain #scheduler scheduler} at its deadline and then
     * reads the ticker again, so that a fake ticker with a manual scheduler driven by it ends a blocking call's
     * {@code maxWait} without real time passing (an asynchronous wait is timed by the scheduler anyway).
     *
     * @param ticker the ticker
     * @return this builder
     * @throws NullPointerException when {@code ticker} is {@code null}
     */
    public Bulkhead.Builder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return self();
    }

    /**
     * Sets the scheduler that times out asynchronous waits (for tests, or to use an executor of one's own).
     * Default: {@link Scheduler#shared()}.
     *
     * @param scheduler the scheduler
     * @return this builder
     * @throws NullPointerException when {@code scheduler} is {@code null}
     */
    public Bulkhead.Builder scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return self();
    }

    /**
     * Sets the order in which waiting calls get freed slots. Default: {@link QueueOrder#FIFO}.
     *
     * @param order the order
     * @return this builder
     * @throws NullPointerException when {@code order} is {@code null}
     */
    public Bulkhead.Builder queueOrder(QueueOrder order) {
        this.queueOrder = Objects.requireNonNull(order, "order");
        return self();
    }

    /**
     * Reserves headroom for a priority: {@code slots} slots that only calls of {@code priority} or a higher one
     * may take. A call of a lower priority takes its slots only while the reserves of all priorities above it
     * stay free afterwards (see {@link BulkheadConfig#headroom(Priority)}); if they would not, it queues (or is
     * refused when the queue is full), and the queue keeps its strict order. Example:
     * {@code reserve(Priority.CRITICAL, 2)} on a limit of 10 lets CRITICAL calls use all 10 slots and every other
     * call at most 8 (so a NORMAL call of weight 9 fails at once there, as it could never run). Calling it again
     * for the same priority replaces the value; 0 removes the reserve.
     * Default: no reserve.
     *
     * @param priority the priority the slots are kept for; not {@link Priority#SHEDDABLE}, which every call may
     *     use anyway
     * @param slots at least 0; all reserves together must stay below {@code maxConcurrency}, and with an
     *     {@link #adaptive(AdaptiveLimit) adaptive limit} below its {@link AdaptiveLimit#minLimit() minLimit} too
     *     (checked by {@link Bulkhead.Builder#config()})
     * @return this builder
     * @throws NullPointerException when {@code priority} is {@code null}
     * @throws IllegalArgumentException when {@code slots} is negative, or {@code priority} is
     *     {@link Priority#SHEDDABLE}
     */
    public Bulkhead.Builder reserve(Priority priority, int slots) {
        Objects.requireNonNull(priority, "priority");
        if (priority == Priority.SHEDDABLE) {
            throw new IllegalArgumentException("priority SHEDDABLE cannot have a reserve: every call may use "
                    + "slots reserved for the lowest priority");
        }
        if (slots < 0) {
            throw new IllegalArgumentException("slots must not be negative but was " + slots);
        }
        reserved[priority.ordinal()] = slots;
        return self();
    }

    /**
     * Makes the concurrency limit adaptive: it moves between the limit's minimum and maximum from observed
     * latencies and outcomes, starting at {@link #maxConcurrency(int)}. See {@link AdaptiveLimit}.
     *
     * @param limit the algorithm and its bounds
     * @return this builder
     * @throws NullPointerException when {@code limit} is {@code null}
     */
    public Bulkhead.Builder adaptive(AdaptiveLimit limit) {
        this.adaptiveLimit = Objects.requireNonNull(limit, "limit");
        return self();
    }

    private Bulkhead.Builder self() {
        return (Bulkhead.Builder) this;
    }
}
