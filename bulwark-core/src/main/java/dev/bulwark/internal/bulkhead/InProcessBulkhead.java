package dev.bulwark.internal.bulkhead;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.QueueOrder;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Subscription;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import dev.bulwark.internal.Chain;
import dev.bulwark.internal.ChainStep;
import dev.bulwark.internal.FirstUse;
import dev.bulwark.internal.Throwables;
import dev.bulwark.internal.adaptive.AdaptiveLimiter;
import dev.bulwark.internal.adaptive.AdaptiveLimiters;
import dev.bulwark.internal.spi.AdaptiveTarget;
import dev.bulwark.internal.spi.Arguments;
import dev.bulwark.internal.spi.AsyncOperation;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.VarHandles;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.stats.SampledListener;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The in-process {@link Bulkhead}: its entry points (sync, async, permits), the timing and reporting of calls,
 * and run-time configuration. The slots and the waiter queue it serves them from are {@link SlotQueue}'s (read
 * its design notes first: the state word, the fast and slow paths and their invariants).
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Waking.</b> Granted waiters are woken after the lock is released: a sync waiter is unparked, an async
 * waiter is started through {@link GrantDispatch}'s per-thread trampoline so that long chains of
 * immediately-completing operations drain iteratively. No user code (operations, handlers, listeners, future
 * callbacks) ever runs under the lock.
 *
 * <p><b>Observation.</b> With no listener and a fixed limit a call reads no clock: the sync call reads
 * {@link #events} once, and that one read both reports its admission and picks the plain or the observed path (a
 * listener attached or detached while a call runs may see only one of its admission and its release).
 * A call that the sampled listeners do not time is not reported at release at all. Otherwise the call is timed and its
 * outcome classified for listeners and the adaptive limit ({@link #releaseAfterRun}), and the release is reported
 * before the slot is handed on, so that event order stays causal.
 */
public final class InProcessBulkhead extends WeightedEntries implements ChainStep, AdaptiveTarget {

    private static final VarHandle EVENTS =
            VarHandles.field(MethodHandles.lookup(), "events", BulkheadEvents.class);

    private final BulkheadConfig config;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Consumer<? super Rejection> rejectionHandler;
    /** {@code null} for a fixed limit. */
    private final AdaptiveLimiter limiter;
    /**
     * {@code null} when no listener is registered: the hot path then reads no clock. Replaced (never mutated) when
     * a listener is attached or detached.
     */
    private volatile BulkheadEvents events;
    /** Releases the slot of an async operation; made once so that starting one allocates nothing for it. */
    private final AsyncOperation.Slot asyncSlot = this::releaseAfterAsync;

    private volatile Duration maxWait;
    /** Read under the lock by a waiter as it joins the queue ({@link Waiter#startWaiting}). */
    volatile long maxWaitNanos;

    /**
     * Creates a bulkhead with all slots free and nobody waiting.
     *
     * @param config the configuration
     */
    public InProcessBulkhead(BulkheadConfig config) {
        super(config.name(), AdaptiveLimiters.startingLimit(config), config.maxQueue(),
                config.queueOrder() == QueueOrder.LIFO, WaiterQueue.headroomOf(config));
        this.config = config;
        this.ticker = config.ticker();
        this.scheduler = config.scheduler();
        this.rejectionHandler = config.rejectionHandler().orElse(null);
        this.events = BulkheadEvents.of(name, config.listeners());
        this.maxWait = config.maxWait().orElse(null);
        this.maxWaitNanos = Arguments.boundedNanos(maxWait);
        this.limiter = config.adaptiveLimit().map(limit -> AdaptiveLimiters.of(limit, config.maxConcurrency()))
                .orElse(null);
        FirstUse.prepare();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Releasing and observing

    /**
     * Reports the execution time, then releases a slot whose operation ran. Reporting first keeps the event order
     * causal for listeners that count calls in flight: the next waiter's "admitted" never precedes this "released".
     */
    void releaseAfterRun(long startedAt, Permit.Outcome outcome) {
        releaseAfterRun(startedAt, outcome, 1);
    }

    /** {@link #releaseAfterRun(long, Permit.Outcome)} for a call that held {@code weight} slots. */
    void releaseAfterRun(long startedAt, Permit.Outcome outcome, int weight) {
        BulkheadEvents listeners = events;
        AdaptiveLimiter adaptive = limiter;
        boolean untimed = startedAt == SampledListener.UNTIMED;
        // An untimed call has nothing to tell listeners that are content with samples (or need no times at all;
        // a dispatcher with a listener that needs every time reports 0 for a call that began before it came).
        if (adaptive == null && (listeners == null || (untimed && !listeners.timesEveryCall()))) {
            releaseSlots(weight);
            return;
        }
        try {
            long endedAt = untimed ? startedAt : ticker.read();
            long executionNanos = untimed ? startedAt : endedAt - startedAt;
            if (listeners != null) {
                listeners.released(executionNanos, endedAt);
            }
            // The adaptive limit samples timed calls (see AdaptiveLimiter#shouldTime) and every drop.
            if (adaptive != null && (!untimed || outcome == Permit.Outcome.DROPPED)) {
                adaptive.sample(this, untimed ? ticker.read() : endedAt, executionNanos, executingCount(), outcome);
            }
        } finally {
            releaseSlots(weight);
        }
    }

    /** Whether finished calls must be reported (to listeners or the adaptive limit). One volatile read. */
    boolean observed() {
        return events != null || limiter != null;
    }

    /**
     * The start of an observed call: a clock reading, or {@link SampledListener#UNTIMED} when neither the adaptive
     * limit's sampler ({@link AdaptiveLimiter#shouldTime}) nor any listener wants this call timed (see
     * {@link BulkheadEvents#startTime}).
     */
    private long startTime(BulkheadEvents listeners) {
        AdaptiveLimiter adaptive = limiter;
        if (adaptive != null && adaptive.shouldTime()) {
            return ticker.read();
        }
        return listeners == null ? SampledListener.UNTIMED : listeners.startTime(ticker);
    }

    /** How a failed call counts for the adaptive limit. */
    Permit.Outcome outcomeOf(Throwable failure) {
        AdaptiveLimiter adaptive = limiter;
        return adaptive == null ? Permit.Outcome.IGNORED : adaptive.classify(failure);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sync calls

    @Override
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        boolean unreported = acquireSlotUnreported(signal);
        // One read of the listeners serves the admission report and the choice of path (see the design notes).
        BulkheadEvents listeners = events;
        if (listeners == null && limiter == null) {
            try {
                return operation.get();
            } finally {
                releaseUnused();
            }
        }
        if (unreported && listeners != null) {
            listeners.admitted(0L, Priority.NORMAL);
        }
        return runObserved(listeners, operation, 1);
    }

    @Override
    public <X extends Throwable> void run(dev.bulwark.ThrowingRunnable<X> operation, CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        acquireSlot(signal);
        if (!observed()) {
            try {
                operation.run();
            } finally {
                releaseUnused();
            }
            return;
        }
        runObserved(() -> {
            operation.run();
            return null;
        }, 1);
    }

    @Override
    public <T, X extends Throwable> T call(Chain chain, int next, ThrowingSupplier<? extends T, X> operation,
                                           CancellationSignal signal) throws X {
        acquireSlot(signal);
        if (!observed()) {
            try {
                return chain.proceed(next, operation, signal);
            } finally {
                releaseUnused();
            }
        }
        return runObserved(() -> chain.proceed(next, operation, signal), 1);
    }

    /** Runs an admitted operation, timing it and classifying its outcome for listeners and the adaptive limit. */
    <T, X extends Throwable> T runObserved(ThrowingSupplier<? extends T, X> operation, int weight) throws X {
        return runObserved(events, operation, weight);
    }

    /** {@link #runObserved(ThrowingSupplier, int)} with the listeners already read for the admission. */
    private <T, X extends Throwable> T runObserved(BulkheadEvents listeners, ThrowingSupplier<? extends T, X> operation,
                                                   int weight) throws X {
        long startedAt = startTime(listeners);
        T result;
        try {
            result = operation.get();
        } catch (Throwable failure) {
            releaseAfterRun(startedAt, outcomeOf(failure), weight);
            throw Throwables.<X>rethrow(failure);
        }
        releaseAfterRun(startedAt, Permit.Outcome.SUCCESS, weight);
        return result;
    }

    @Override
    public <T> CompletableFuture<T> callAsync(Chain chain, int next, Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        return callAsync(() -> chain.proceedAsync(next, operation, signal), signal);
    }

    @Override
    public Permit acquire(CancellationSignal signal) {
        acquireSlot(signal);
        return newPermit();
    }

    @Override
    public Optional<Permit> tryAcquire() {
        if (admitOrObserveFull() != ADMITTED) {
            return Optional.empty();
        }
        reportAdmitted(0);
        return Optional.of(newPermit());
    }

    Permit newPermit() {
        return newPermit(1);
    }

    Permit newPermit(int weight) {
        return new LocalPermit(this, observed() ? startTime(events) : SampledListener.UNTIMED, weight);
    }

    /** Takes a slot for the calling thread, waiting if needed, and reports the admission; throws if it cannot. */
    private void acquireSlot(CancellationSignal signal) {
        if (acquireSlotUnreported(signal)) {
            reportAdmitted(0);
        }
    }

    /**
     * Takes a slot for the calling thread, waiting if needed; throws if it cannot.
     *
     * @return {@code true} when a slot was free at once and the admission is still to be reported by the caller;
     *     {@code false} when the call waited and its admission (with the wait) was reported already
     */
    private boolean acquireSlotUnreported(CancellationSignal signal) {
        if (Objects.requireNonNull(signal, "signal").isCancelled()) {
            throw Outcomes.cancelledBeforeStart(name, signal);
        }
        long outcome = admitOrObserveFull();
        if (outcome == ADMITTED) {
            return true;
        }
        if (outcome != MUST_WAIT) {
            throw rejectQueueFull(outcome);
        }
        SyncWaiter.await(this, signal);
        return false;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Async calls

    @Override
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<T> result = new WaiterFuture<>();
        if (signal.isCancelled()) {
            result.completeExceptionally(Outcomes.cancelledBeforeStart(name, signal));
            return result;
        }
        long outcome = admitOrObserveFull();
        if (outcome == ADMITTED) {
            reportAdmitted(0);
            startAsync(operation, result);
        } else if (outcome != MUST_WAIT) {
            result.completeExceptionally(rejectQueueFull(outcome));
        } else {
            waitAsync(new AsyncCallWaiter<>(this, signal, ticker.read(), operation, result), result);
        }
        return result;
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        Objects.requireNonNull(signal, "signal");
        if (signal.isCancelled()) {
            return CompletableFuture.failedFuture(Outcomes.cancelledBeforeStart(name, signal));
        }
        return AsyncPermitWaiter.acquire(this, signal, true);
    }

    void waitAsync(AsyncWaiter waiter, CompletableFuture<?> callerFuture) {
        Rejection rejection = enqueue(waiter);
        if (rejection != null) {
            callerFuture.completeExceptionally(refusedOnArrival(rejection, waiter));
        } else if (waiter.grantedOnArrival) {
            reportAdmitted(0, waiter.priorityLevel());
            waiter.begin();
        } else {
            waiter.arm(scheduler);
        }
    }

    /** Runs an async operation that holds a slot, and releases the slot when its stage completes. */
    <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result) {
        AsyncOperation.start(operation, result, asyncSlot, observed() ? startTime(events) : SampledListener.UNTIMED);
    }

    /** {@link #startAsync(Supplier, CompletableFuture)} for an operation that holds {@code weight} slots. */
    <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result, int weight) {
        if (weight == 1) {
            startAsync(operation, result);
            return;
        }
        AsyncOperation.Slot slots = (startedAt, failure) -> releaseAfterRun(startedAt,
                failure == null ? Permit.Outcome.SUCCESS : outcomeOf(failure), weight);
        AsyncOperation.start(operation, result, slots, observed() ? startTime(events) : SampledListener.UNTIMED);
    }

    /** Releases the slot of an async operation that ran; see {@link AsyncOperation}. */
    private void releaseAfterAsync(long startedAt, Throwable failure) {
        releaseAfterRun(startedAt, failure == null ? Permit.Outcome.SUCCESS : outcomeOf(failure));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Outcomes

    /** Reports the refusal, runs the overflow handler on the current thread, and makes the exception. */
    BulkheadRejectedException reject(Rejection rejection) {
        return reject(rejection, null);
    }

    /** {@link #reject(Rejection)} for a queued call, with the contexts captured when it started to wait. */
    @Override
    BulkheadRejectedException reject(Rejection rejection, BulkheadEvents.CallerContexts contexts) {
        FlightRecorderEvents.rejected(rejection);
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.rejected(rejection, contexts);
        }
        return Outcomes.reject(rejection, null, rejectionHandler);
    }

    /** The contexts a call starting to wait now should be reported in, or {@code null} (see {@link Waiter}). */
    BulkheadEvents.CallerContexts captureCallerContexts() {
        BulkheadEvents listeners = events;
        return listeners == null ? null : listeners.captureCallerContexts();
    }

    /** Refuses a call that found the queue full in {@code observedState}; see {@link #quietQueueFull}. */
    BulkheadRejectedException rejectQueueFull(long observedState) {
        return events != null || rejectionHandler != null ? reject(queueFull(observedState))
                : quietQueueFull(observedState);
    }

    @Override
    void reportAdmitted(long waitedNanos, Priority priority) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.admitted(waitedNanos, priority);
        }
    }

    @Override
    void reportAdmitted(long waitedNanos, Priority priority, BulkheadEvents.CallerContexts contexts) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.admitted(waitedNanos, priority, contexts);
        }
    }

    @Override
    void reportCancelled(long waitedNanos, Priority priority, BulkheadEvents.CallerContexts contexts) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.cancelled(waitedNanos, priority, contexts);
        }
    }

    Ticker ticker() {
        return ticker;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    @Override
    long waitStart() {
        return ticker.read();
    }

    @Override
    long maxWaitNanos() {
        return maxWaitNanos;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Configuration and counts

    @Override
    public Subscription addListener(BulkheadListener listener) {
        Objects.requireNonNull(listener, "listener");
        BulkheadEvents.Entry entry = new BulkheadEvents.Entry(listener);
        BulkheadEvents current;
        do {
            current = events;
        } while (!EVENTS.compareAndSet(this, current, BulkheadEvents.with(current, name, entry)));
        return () -> {
            BulkheadEvents before;
            BulkheadEvents after;
            do {
                before = events;
                after = BulkheadEvents.without(before, entry);
            } while (before != after && !EVENTS.compareAndSet(this, before, after));
        };
    }

    @Override
    public String name() {
        return name;
    }


    @Override
    public Optional<Duration> maxWait() {
        return Optional.ofNullable(maxWait);
    }

    /**
     * Returns the configuration this bulkhead was built with. Run-time changes are not reflected.
     *
     * @return the original configuration
     */
    public BulkheadConfig config() {
        return config;
    }

    @Override
    public void changeMaxConcurrency(int newMaxConcurrency) {
        Arguments.requireMaxConcurrency(newMaxConcurrency);
        // The build's rule, kept at run time: at a limit the reserves fill, a call of the lowest priority could
        // never run, and a queued one would hold everyone behind it for good.
        int reserved = headroom[headroom.length - 1];
        if (newMaxConcurrency <= reserved) {
            throw new IllegalArgumentException("maxConcurrency (" + newMaxConcurrency + ") of bulkhead '" + name
                    + "' must exceed the " + reserved + " slots reserved for higher priorities (reserve), so that "
                    + "every priority can run");
        }
        changeLimit(-1, newMaxConcurrency);
    }

    /**
     * Moves the limit for the adaptive algorithm, only if it still is {@code expected}, so that concurrent
     * decisions based on the same value do not compound.
     *
     * @return whether the limit changed
     */
    @Override
    public boolean adaptLimit(int expected, int newLimit) {
        return changeLimit(expected, newLimit);
    }


    @Override
    public void changeMaxQueue(int newMaxQueue) {
        maxQueue = Arguments.requireMaxQueue(newMaxQueue);
    }

    @Override
    public void changeMaxWait(Duration newMaxWait) {
        if (newMaxWait != null) {
            Arguments.requirePositive(newMaxWait, "maxWait");
        }
        lock.lock();
        try {
            // Both fields change under the lock so that maxWait() and the deadlines of newcomers agree.
            maxWait = newMaxWait;
            maxWaitNanos = Arguments.boundedNanos(newMaxWait);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Bulkhead[" + name + ": executing " + executingCount() + " of " + maxConcurrency + ", queued "
                + queuedCount() + " of " + maxQueue + "]";
    }
}
