package dev.bulwark;

import dev.bulwark.internal.bulkhead.InProcessBulkhead;
import dev.bulwark.internal.util.Arguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A bulkhead caps how many operations run at once against a resource, queues a bounded number of callers in
 * strict arrival order, gives up on a caller after a maximum wait, tells an overflow handler why it refused,
 * and lets a caller cancel while it waits.
 *
 * <h2>Semantics</h2>
 * <ul>
 *   <li><b>Admission.</b> When fewer than {@link #maxConcurrency()} calls hold a slot and nobody waits, a
 *       call takes a slot and runs on the calling thread. Otherwise it joins the queue if fewer than
 *       {@link #maxQueue()} calls wait, and is refused with {@link Rejection.Reason#QUEUE_FULL} if not.</li>
 *   <li><b>Order.</b> Waiters get slots strictly in arrival order. There is no barging: while anyone waits, a
 *       freed slot goes straight to the head of the queue and a newcomer queues behind.</li>
 *   <li><b>Maximum wait.</b> A waiter that has not got a slot within {@link #maxWait()} leaves the queue and is
 *       refused with {@link Rejection.Reason#WAIT_TIMEOUT}. A slot freed at the same instant is either used by
 *       that waiter or passed to the next one: never lost, never used twice.</li>
 *   <li><b>Refusal.</b> A refused operation never runs. The overflow handler (if any) is called with the
 *       {@link Rejection} on the refused caller's thread (for an asynchronous waiter: the thread that decided the
 *       refusal, that is a thread of {@code ForkJoinPool.commonPool()} for a timeout with the default scheduler (the
 *       scheduler's thread with one you gave), the evicting newcomer's thread for an eviction, the closing or
 *       draining thread for {@code CLOSED}, the thread changing the limit for {@code WEIGHT_EXCEEDS_LIMIT}), then
 *       {@link BulkheadRejectedException} is thrown, or completes the future of an asynchronous call.</li>
 *   <li><b>Cancellation.</b> A call whose {@link CancellationSignal} is already cancelled takes no slot and is
 *       not queued. A queued call whose signal is cancelled (or whose thread is interrupted, or whose returned
 *       future is cancelled) leaves the queue at once and never runs. Either way a
 *       {@link java.util.concurrent.CancellationException} with the signal's reason (or the
 *       {@link InterruptedException}) as cause ends the call; the overflow handler is not called. A slot granted
 *       at the same instant is passed on to the next waiter. A running operation is never interrupted.</li>
 *   <li><b>Release.</b> The slot is released exactly once when the operation ends: by returning, by throwing
 *       anything (including an {@link Error}), or, for an asynchronous operation, when its own stage
 *       completes, however early the caller abandons the returned future.</li>
 * </ul>
 *
 * <p><b>Weights, priorities and drain</b> ({@link CallOptions}, {@link #drain(Duration)}; the full rules are in
 * {@code docs/priorities.md}): a call may take several slots and carry a {@link Priority}; the queue serves the
 * highest priority first and stays strictly FIFO within one, so a waiter needing 3 slots is never passed by later
 * 1-slot callers. A weight above the limit fails at once with an {@link IllegalArgumentException} naming
 * {@code weight}. {@link #close()} and {@link #drain(Duration)} stop admitting ({@link Rejection.Reason#CLOSED})
 * and refuse every queued waiter; {@code drain} then waits for the running calls.
 *
 * <p>Implementations are thread-safe; share one instance among all callers of the resource it protects. The
 * in-process implementation ({@link #builder()}, {@link #of(int)}) takes a slot with one compare-and-set and
 * no allocation when one is free, and holds no thread for an asynchronous waiter. This interface is open to
 * other implementations (a cluster-wide bulkhead, for example) that keep the same semantics.
 */
public interface Bulkhead extends Policy, AutoCloseable {

    /**
     * Starts configuring an in-process bulkhead. Defaults: {@code maxConcurrency} 10, {@code maxQueue} 0, no
     * maximum wait, no overflow handler, a generated name.
     *
     * @return a new builder
     */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Makes an in-process bulkhead with the given concurrency limit and the other defaults of
     * {@link #builder()} (no queue: a call is refused at once when no slot is free).
     *
     * @param maxConcurrency the maximum number of calls that run at once
     * @return a new bulkhead
     * @throws IllegalArgumentException when {@code maxConcurrency} is less than 1
     */
    static Bulkhead of(int maxConcurrency) {
        return builder().maxConcurrency(maxConcurrency).build();
    }

    /**
     * Makes an in-process bulkhead from a configuration.
     *
     * @param config the configuration
     * @return a new bulkhead with its own state
     * @throws NullPointerException when {@code config} is {@code null}
     */
    static Bulkhead of(BulkheadConfig config) {
        return new InProcessBulkhead(Objects.requireNonNull(config, "config"));
    }

    /**
     * Runs {@code operation} on the calling thread once a slot is free, waiting in the queue if needed.
     *
     * @throws X the operation's own exception, untouched; the slot is released first
     * @throws BulkheadRejectedException when the queue is full or the maximum wait passed; the operation did not run
     * @throws java.util.concurrent.CancellationException when {@code signal} was cancelled before a slot was
     *     granted, or the thread was interrupted while waiting (its interrupt status is restored); the
     *     operation did not run
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    <T extends @Nullable Object, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
            CancellationSignal signal) throws X;

    /**
     * Starts {@code operation} once a slot is free and holds the slot until the stage it returns completes.
     * Never blocks: a waiting call is a queue entry, not a thread. The operation is invoked on the calling
     * thread when a slot is free at once, otherwise on the thread that frees the slot; the returned future is
     * completed on the thread that completes the operation's stage.
     *
     * <p>Refusal and cancellation complete the returned future exceptionally with
     * {@link BulkheadRejectedException} or {@link java.util.concurrent.CancellationException}. Cancelling the
     * returned future while the call is queued removes it; once the operation has started, it keeps its slot
     * until its own stage completes. An operation that throws, or returns {@code null}, completes the future
     * exceptionally and releases the slot.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    <T extends @Nullable Object> CompletableFuture<T> callAsync(
            java.util.function.Supplier<? extends java.util.concurrent.CompletionStage<T>> operation,
                                       CancellationSignal signal);

    /**
     * Returns the bulkhead's name.
     *
     * @return the name, never blank
     */
    String name();

    /**
     * Returns the current concurrency limit. Cheap and consistent with admission: a reader that sees a new limit
     * also sees its slots (during a concurrent {@link #changeMaxConcurrency} it waits the few instructions the
     * change takes).
     *
     * @return at least 1
     */
    int maxConcurrency();

    /**
     * Returns the current queue limit. A volatile read.
     *
     * @return at least 0
     */
    int maxQueue();

    /**
     * Returns the current maximum wait for a slot.
     *
     * @return the positive maximum wait, or empty when a waiter waits without a time bound
     */
    Optional<Duration> maxWait();

    /**
     * Returns how many slots are in use now, by calls running or granted and about to run: a call of
     * {@linkplain CallOptions#weight() weight} n holds n, so this counts slots, not calls. Thread-safe; exact when
     * the bulkhead is quiet, never negative. The in-process bulkhead answers with two volatile reads; other
     * implementations document their cost (a cluster-wide one asks its store). It exceeds {@link #maxConcurrency()}
     * only after the limit was lowered, until enough running calls end.
     *
     * @return the number of slots in use
     */
    int executingCount();

    /**
     * Returns how many calls wait for a slot now, each counting 1 whatever its weight. Thread-safe; exact when the
     * bulkhead is quiet, never negative, never above the queue limit in force when the waiters joined. The
     * in-process bulkhead answers with one volatile read; other implementations document their cost.
     *
     * @return the number of waiting calls
     */
    int queuedCount();

    /**
     * Attaches a listener after construction (metrics bind this way). A listener attached while calls are in
     * flight sees only their later events. Listeners given to the builder cannot be detached.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    Subscription addListener(BulkheadListener listener);

    /**
     * Changes the concurrency limit at run time. Never blocks and never interrupts anything: raising the limit
     * admits queued callers at once (in arrival order); lowering it lets running calls finish and admits nobody
     * until fewer than {@code maxConcurrency} calls hold a slot.
     *
     * @param maxConcurrency the new limit
     * @throws IllegalArgumentException when {@code maxConcurrency} is less than 1, or (as at build time) not above
     *     the slots the {@linkplain Builder#reserve(Priority, int) reserves} add up to: at such a limit a call of the
     *     lowest priority could never run; the limit is then unchanged
     */
    void changeMaxConcurrency(int maxConcurrency);

    /**
     * Changes the queue limit at run time. Never blocks and never drops a call that is already queued: a smaller
     * limit only refuses newcomers until the queue has shrunk below it.
     *
     * @param maxQueue the new queue limit
     * @throws IllegalArgumentException when {@code maxQueue} is negative
     */
    void changeMaxQueue(int maxQueue);

    /**
     * Changes the maximum wait at run time. Calls already queued keep the deadline they joined with; the new
     * value applies to calls that join the queue afterwards.
     *
     * @param maxWait the new positive maximum wait, or {@code null} for no time bound
     * @throws IllegalArgumentException when {@code maxWait} is zero or negative
     */
    void changeMaxWait(@Nullable Duration maxWait);

    /**
     * Takes a slot, waiting by the same rules as {@link #call(ThrowingSupplier, CancellationSignal)}, and
     * returns it as a permit that the caller must close.
     *
     * @param signal lets the caller give up while waiting
     * @return the permit holding the slot
     * @throws BulkheadRejectedException when the queue is full or the maximum wait passed
     * @throws java.util.concurrent.CancellationException when {@code signal} was cancelled before a slot was
     *     granted, or the thread was interrupted while waiting (its interrupt status is restored)
     * @throws NullPointerException when {@code signal} is {@code null}
     */
    Permit acquire(CancellationSignal signal);

    /**
     * Takes a slot with no cancellation signal; see {@link #acquire(CancellationSignal)}.
     *
     * @return the permit holding the slot
     * @throws BulkheadRejectedException when the queue is full or the maximum wait passed
     * @throws java.util.concurrent.CancellationException when the thread was interrupted while waiting
     */
    default Permit acquire() {
        return acquire(CancellationSignal.none());
    }

    /**
     * Takes a slot if one is free now and nobody waits; never waits, never calls the overflow handler, never
     * throws. Listeners hear of a permit it returns ({@code admitted}, later {@code released}); an empty result is
     * no call and reports nothing, so refusals counted by metrics do not include it.
     *
     * @return the permit, or empty when no slot is free or others are already waiting (no barging)
     */
    Optional<Permit> tryAcquire();

    /**
     * Takes a slot without blocking: the returned future completes with a permit once a slot is granted, or
     * exceptionally with {@link BulkheadRejectedException} or {@link java.util.concurrent.CancellationException}.
     * Cancelling the returned future while queued removes the waiter; a permit granted to a future that was
     * already cancelled is released at once.
     *
     * @param signal lets the caller give up while waiting
     * @return a future for the permit
     * @throws NullPointerException when {@code signal} is {@code null}
     */
    CompletableFuture<Permit> acquireAsync(CancellationSignal signal);

    /**
     * Takes a slot without blocking and with no cancellation signal; see {@link #acquireAsync(CancellationSignal)}.
     *
     * @return a future for the permit
     */
    default CompletableFuture<Permit> acquireAsync() {
        return acquireAsync(CancellationSignal.none());
    }

    /**
     * Runs {@code operation} on the calling thread once {@link CallOptions#weight()} slots are free, waiting in the
     * queue at the options' {@link CallOptions#priority()} if needed, by the rules of
     * {@link #call(ThrowingSupplier, CancellationSignal)} with the options' signal. The slots are released
     * together, exactly once, when the operation ends.
     *
     * @param <T> the operation's result type
     * @param <X> the operation's checked exception type
     * @param options the weight, priority and cancellation signal
     * @param operation the operation
     * @return the operation's result
     * @throws X the operation's own exception, untouched; the slots are released first
     * @throws IllegalArgumentException when the weight exceeds the current {@link #maxConcurrency()} (message names
     *     {@code weight}); the operation did not run
     * @throws BulkheadRejectedException when the queue is full, the maximum wait passed, a higher priority evicted
     *     the call, the limit dropped below its weight, or the bulkhead is closed; the operation did not run
     * @throws java.util.concurrent.CancellationException when the signal was cancelled before the slots were
     *     granted, or the thread was interrupted while waiting (its interrupt status is restored)
     * @throws NullPointerException when an argument is {@code null}
     */
    <T extends @Nullable Object, X extends Throwable> T call(CallOptions options,
                                                             ThrowingSupplier<? extends T, X> operation) throws X;

    /**
     * Starts {@code operation} once {@link CallOptions#weight()} slots are free, by the rules of
     * {@link #callAsync(java.util.function.Supplier, CancellationSignal)} with the options' priority and signal,
     * and holds the slots until the stage it returns completes. Never blocks.
     *
     * @param <T> the stage's result type
     * @param options the weight, priority and cancellation signal
     * @param operation supplies the stage of the asynchronous work
     * @return a future completed like the one of {@code callAsync}; completed exceptionally with
     *     {@link IllegalArgumentException} (naming {@code weight}) when the weight exceeds the current
     *     {@link #maxConcurrency()}
     * @throws NullPointerException when an argument is {@code null}
     */
    <T extends @Nullable Object> CompletableFuture<T> callAsync(
            CallOptions options,
            java.util.function.Supplier<? extends java.util.concurrent.CompletionStage<T>> operation);

    /**
     * Takes {@link CallOptions#weight()} slots, waiting at the options' priority by the rules of
     * {@link #call(CallOptions, ThrowingSupplier)}, and returns them as one permit whose close releases all of
     * them, once.
     *
     * <p>The options forms of the permit methods are named {@code ...With} so that {@code acquire(null)} and
     * {@code acquireAsync(null)} keep meaning the {@link CancellationSignal} forms (an overload would make them
     * ambiguous); {@link #acquire(int)} is the shorthand for a weight alone.
     *
     * @param options the weight, priority and cancellation signal
     * @return the permit holding the slots
     * @throws IllegalArgumentException when the weight exceeds the current {@link #maxConcurrency()} (message names
     *     {@code weight})
     * @throws BulkheadRejectedException when the queue is full, the maximum wait passed, the call was evicted, the
     *     limit dropped below its weight, or the bulkhead is closed
     * @throws java.util.concurrent.CancellationException when the signal was cancelled before the slots were
     *     granted, or the thread was interrupted while waiting (its interrupt status is restored)
     * @throws NullPointerException when {@code options} is {@code null}
     */
    Permit acquireWith(CallOptions options);

    /**
     * Takes {@link CallOptions#weight()} slots if they are free now, nobody waits and the options' priority may use
     * them (see {@link Builder#reserve(Priority, int)}); never waits, never calls the overflow handler. As with
     * {@link #tryAcquire()}, listeners hear of a permit it returns and nothing of an empty result.
     *
     * <p>"Nobody waits" means nobody at all, whatever the priorities: the priority only decides which reserved
     * slots the call may take, and never lets it pass a waiter. With a call of a lower priority waiting (one that
     * needs more slots than are free, or whose priority may not take the free ones), this returns empty even when
     * the slots are free for this priority; {@link #acquireWith(CallOptions)}, {@link #acquireAsyncWith(CallOptions)},
     * {@link #call(CallOptions, ThrowingSupplier)} and {@link #callAsync(CallOptions, java.util.function.Supplier)}
     * with the same options would take them at once when its priority is above every waiter's. Thread-safe, like
     * every method of the bulkhead.
     *
     * @param options the weight and priority (a cancelled signal gives empty)
     * @return the permit holding the slots, or empty when they are not free, anyone waits (of any priority), or the
     *     bulkhead is closed
     * @throws IllegalArgumentException when the weight exceeds the current {@link #maxConcurrency()} (message names
     *     {@code weight})
     * @throws NullPointerException when {@code options} is {@code null}
     */
    Optional<Permit> tryAcquireWith(CallOptions options);

    /**
     * Takes {@link CallOptions#weight()} slots without blocking, by the rules of
     * {@link #acquireAsync(CancellationSignal)} with the options' priority and signal.
     *
     * @param options the weight, priority and cancellation signal
     * @return a future for the permit; completed exceptionally with {@link IllegalArgumentException} (naming
     *     {@code weight}) when the weight exceeds the current {@link #maxConcurrency()}
     * @throws NullPointerException when {@code options} is {@code null}
     */
    CompletableFuture<Permit> acquireAsyncWith(CallOptions options);

    /**
     * Takes {@code permits} slots as one permit; shorthand for {@code acquireWith(CallOptions.weight(permits))}.
     *
     * @param permits how many slots, at least 1
     * @return the permit holding the slots
     * @throws IllegalArgumentException when {@code permits} is less than 1 or exceeds the current
     *     {@link #maxConcurrency()} (message names {@code weight})
     * @throws BulkheadRejectedException see {@link #acquireWith(CallOptions)}
     * @throws java.util.concurrent.CancellationException when the thread was interrupted while waiting
     */
    default Permit acquire(int permits) {
        return acquireWith(CallOptions.weight(permits));
    }

    /**
     * Takes {@code permits} slots if free now; shorthand for {@code tryAcquireWith(CallOptions.weight(permits))}.
     *
     * @param permits how many slots, at least 1
     * @return the permit, or empty
     * @throws IllegalArgumentException when {@code permits} is less than 1 or exceeds the current
     *     {@link #maxConcurrency()} (message names {@code weight})
     */
    default Optional<Permit> tryAcquire(int permits) {
        return tryAcquireWith(CallOptions.weight(permits));
    }

    /**
     * Takes {@code permits} slots without blocking; shorthand for
     * {@code acquireAsyncWith(CallOptions.weight(permits))}.
     *
     * @param permits how many slots, at least 1
     * @return a future for the permit
     * @throws IllegalArgumentException when {@code permits} is less than 1 (the weight check against the limit
     *     fails the future instead)
     */
    default CompletableFuture<Permit> acquireAsync(int permits) {
        return acquireAsyncWith(CallOptions.weight(permits));
    }

    /**
     * Drains the bulkhead: stops admitting (new calls are refused with {@link Rejection.Reason#CLOSED}), refuses
     * every queued waiter with {@link Rejection.Reason#CLOSED} (they never run), then waits up to
     * {@code deadline} for the running calls to release their slots, and reports what was left.
     *
     * <p>Idempotent: a later drain refuses nothing more and waits again for what still runs. A permit released
     * after the close is counted once, like any release. Never blocks past the deadline; {@link Duration#ZERO}
     * does not wait. No thread is started: the draining thread parks until the last release wakes it.
     *
     * <p>Bulwark's bulkheads (in-process, per-key, on Redis) measure the deadline and the time waited in real time
     * ({@link System#nanoTime()}), whatever the builder's {@link Ticker}, and from the end of the closing:
     * {@link DrainResult#waited()} is the time spent waiting for the running calls after the queue was refused, zero
     * when the drain did not wait (a zero deadline, or nothing running after the close). Thread-safe: concurrent
     * drains and closes are allowed.
     *
     * @param deadline how long to wait for running calls, zero or positive
     * @return the number of waiters refused, the calls still holding slots, and the time waited
     * @throws NullPointerException when {@code deadline} is {@code null}
     * @throws IllegalArgumentException when {@code deadline} is negative (message names {@code deadline})
     */
    DrainResult drain(Duration deadline);

    /**
     * Closes the bulkhead without waiting: {@code drain(Duration.ZERO)}. Stops admitting and refuses the queue
     * with {@link Rejection.Reason#CLOSED}; running calls finish normally and release their slots. Idempotent,
     * thread-safe, declares no checked exception.
     */
    @Override
    void close();

    /**
     * Returns whether {@link #close()} or {@link #drain(Duration)} was called. A volatile read.
     *
     * @return {@code true} once closed; never goes back to {@code false}
     */
    boolean isClosed();

    /**
     * Configures an in-process bulkhead. Not thread-safe: configure on one thread, then {@link #build()}.
     * Each setter checks its argument at once and names it in the exception.
     */
    final class Builder {

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

        /**
         * Sets the name used in rejections, exception messages and metrics. Default: a new {@code bulkhead-N} for
         * each build (each {@link #config()}), so that two bulkheads built by one builder never share a name; a
         * builder made by {@link BulkheadConfig#toBuilder()} keeps the config's name.
         *
         * @param name a non-blank name
         * @return this builder
         * @throws NullPointerException when {@code name} is {@code null}
         * @throws IllegalArgumentException when {@code name} is blank
         */
        public Bulkhead.Builder name(String name) {
            this.name = Arguments.requireName(name);
            return this;
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
            return this;
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
            return this;
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
            return this;
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
            return this;
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
            return this;
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
            return this;
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
            return this;
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
            return this;
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
            return this;
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
            return this;
        }


        Builder() {
        }

        Builder(BulkheadConfig config) {
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
         * Returns the configuration built so far, as an immutable value. Unless a name was set (or copied by
         * {@link BulkheadConfig#toBuilder()}), each call gives the config a new default name, {@code bulkhead-N}.
         *
         * @return a new configuration
         * @throws IllegalArgumentException when an adaptive limit is set and {@code maxConcurrency} lies outside
         *     its range, or when the reserves ({@link #reserve(Priority, int)}) add up to {@code maxConcurrency} or
         *     more, or, with an adaptive limit, to its {@link AdaptiveLimit#minLimit() minLimit} or more (the
         *     message names {@code reserve})
         */
        public BulkheadConfig config() {
            long totalReserve = 0; // a long: reserves near Integer.MAX_VALUE must not wrap round to a legal sum
            for (int slots : reserved) {
                totalReserve += slots;
            }
            if (totalReserve >= maxConcurrency) {
                throw new IllegalArgumentException("reserve: the reserved slots (" + totalReserve + ") must stay "
                        + "below maxConcurrency (" + maxConcurrency + ") so that every priority can run");
            }
            // An adaptive limit may run the bulkhead at any limit down to its minLimit (selfTuning() starts at
            // min(maxConcurrency, 4)), and reserves that fill such a limit would let no lower priority in, idle
            // or not; with no traffic of the reserved priorities there would be no samples to raise it again.
            if (adaptiveLimit != null && totalReserve > 0 && totalReserve >= adaptiveLimit.minLimit()) {
                throw new IllegalArgumentException("reserve: the reserved slots (" + totalReserve + ") must stay "
                        + "below the adaptive limit's minLimit (" + adaptiveLimit.minLimit() + "), the lowest limit "
                        + "it may run at, so that every priority can run: raise minLimit above the reserves");
            }
            if (adaptiveLimit != null && (maxConcurrency < adaptiveLimit.minLimit()
                    || maxConcurrency > adaptiveLimit.maxLimit())) {
                throw new IllegalArgumentException("maxConcurrency (" + maxConcurrency + ") is the starting limit "
                        + "and must lie within the adaptive range [" + adaptiveLimit.minLimit() + ", "
                        + adaptiveLimit.maxLimit() + "]");
            }
            return new BulkheadConfig(this);
        }

        /**
         * Builds an in-process bulkhead with this configuration. Each call builds a new bulkhead with its own
         * state (and, unless a name was set, its own default name, as {@link #config()}).
         *
         * @return a new bulkhead
         */
        public Bulkhead build() {
            return Bulkhead.of(config());
        }
    }
}
