package dev.bulwark.internal.bulkhead;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
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
import dev.bulwark.internal.util.Arguments;
import dev.bulwark.internal.spi.AsyncOperation;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.RejectionAccess;
import dev.bulwark.internal.util.ListenerFailureLog;
import dev.bulwark.internal.util.VarHandles;
import dev.bulwark.internal.spi.WaiterFuture;
import dev.bulwark.internal.stats.SampledListener;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The in-process {@link Bulkhead}: its entry points (sync, async, permits; plain and with {@link CallOptions}), the
 * timing and reporting of calls, its drain, and run-time configuration. The slots and the waiter queue it serves them
 * from are its {@link SlotQueue} (read its design notes first: the state word, the fast and slow paths and their
 * invariants); a waiter sees this bulkhead only as its {@link Waiter.Room}, a permit only as its
 * {@link LocalPermit.Slots}, both the one private {@link Room} object, so that nothing they hold calls back up here.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Options.</b> A call with {@link CallOptions} of weight 1 and {@link Priority#NORMAL} goes straight to the
 * single-slot entry points, which stay as short as they can be; anything else takes the weighted admission of
 * {@link SlotQueue#admitOrObserveFull(int, int)} and a waiter carrying its weight and priority.
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
 *
 * <p><b>Drain</b> sets the closed bit and refuses the queue under the lock ({@link SlotQueue#closeQueue()}), then
 * parks the draining thread on one future that the release freeing the last slot completes: no thread per waiter, no
 * polling. Each drain waits on the same future, so drains are idempotent and may run concurrently.
 */
public final class InProcessBulkhead implements Bulkhead, ChainStep, AdaptiveTarget {

    private static final VarHandle EVENTS =
            VarHandles.field(MethodHandles.lookup(), "events", BulkheadEvents.class);

    private final String name;
    /** The state word, the waiter queue and the limits. */
    final SlotQueue slots;
    /** What this bulkhead's waiters and permits see of it. */
    private final Room room = new Room();
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

    /**
     * Creates a bulkhead with all slots free and nobody waiting.
     *
     * @param config the configuration
     */
    public InProcessBulkhead(BulkheadConfig config) {
        this.name = config.name();
        this.slots = new SlotQueue(name, AdaptiveLimiters.startingLimit(config), config.maxQueue(),
                config.maxWait().orElse(null), config.queueOrder() == QueueOrder.LIFO,
                SlotQueue.WaiterQueue.headroomOf(config));
        this.config = config;
        this.ticker = config.ticker();
        this.scheduler = config.scheduler();
        this.rejectionHandler = config.rejectionHandler().orElse(null);
        this.events = BulkheadEvents.of(name, config.listeners());
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
            slots.releaseSlots(weight);
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
            slots.releaseSlots(weight);
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
                slots.releaseUnused();
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
                slots.releaseUnused();
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
                slots.releaseUnused();
            }
        }
        return runObserved(() -> chain.proceed(next, operation, signal), 1);
    }

    /** Runs an admitted operation, timing it and classifying its outcome for listeners and the adaptive limit. */
    private <T, X extends Throwable> T runObserved(ThrowingSupplier<? extends T, X> operation, int weight) throws X {
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
        if (slots.admitOrObserveFull() != SlotQueue.ADMITTED) {
            return Optional.empty();
        }
        reportAdmitted(0);
        return Optional.of(newPermit());
    }

    private Permit newPermit() {
        return newPermit(1);
    }

    private Permit newPermit(int weight) {
        return new LocalPermit(room, observed() ? startTime(events) : SampledListener.UNTIMED, weight);
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
        long outcome = slots.admitOrObserveFull();
        if (outcome == SlotQueue.ADMITTED) {
            return true;
        }
        if (outcome != SlotQueue.MUST_WAIT) {
            throw rejectQueueFull(outcome);
        }
        Waiter.Sync.await(room, signal, 1, Priority.NORMAL);
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
        long outcome = slots.admitOrObserveFull();
        if (outcome == SlotQueue.ADMITTED) {
            reportAdmitted(0);
            startAsync(operation, result);
        } else if (outcome != SlotQueue.MUST_WAIT) {
            result.completeExceptionally(rejectQueueFull(outcome));
        } else {
            waitAsync(new Waiter.Async.ForCall<>(room, signal, operation, result), result);
        }
        return result;
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        Objects.requireNonNull(signal, "signal");
        if (signal.isCancelled()) {
            return CompletableFuture.failedFuture(Outcomes.cancelledBeforeStart(name, signal));
        }
        return acquireAsync(signal, true);
    }

    /**
     * {@code acquireAsync} once the signal is checked: a permit at once, a refusal when the queue is full, or a place
     * in the queue.
     *
     * @param reported whether the overflow handler and listeners hear of a refusal or cancellation: not for the
     *     fair-share pump's request ({@link PumpAcquire}); an admission is always reported (a call holds the slot)
     */
    CompletableFuture<Permit> acquireAsync(CancellationSignal signal, boolean reported) {
        long outcome = slots.admitOrObserveFull();
        if (outcome == SlotQueue.ADMITTED) {
            reportAdmitted(0);
            return CompletableFuture.completedFuture(newPermit());
        }
        if (outcome != SlotQueue.MUST_WAIT) {
            return CompletableFuture.failedFuture(reported ? rejectQueueFull(outcome) : quietQueueFull(outcome));
        }
        CompletableFuture<Permit> future = new WaiterFuture<>();
        waitAsync(new Waiter.Async.ForPermit(room, signal, future, reported), future);
        return future;
    }

    /** Queues an async waiter (or starts it, granted on arrival) and arms the early ends of its wait. */
    private void waitAsync(Waiter.Async waiter, CompletableFuture<?> callerFuture) {
        Rejection rejection = slots.enqueue(waiter);
        if (rejection != null) {
            callerFuture.completeExceptionally(room.refusedOnArrival(rejection, waiter));
        } else if (waiter.grantedOnArrival) {
            reportAdmitted(0, waiter.priorityLevel());
            waiter.begin();
        } else {
            waiter.arm(scheduler);
        }
    }

    /** Runs an async operation that holds a slot, and releases the slot when its stage completes. */
    private <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result) {
        AsyncOperation.start(operation, result, asyncSlot, observed() ? startTime(events) : SampledListener.UNTIMED);
    }

    /** {@link #startAsync(Supplier, CompletableFuture)} for an operation that holds {@code weight} slots. */
    private <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result,
                                int weight) {
        if (weight == 1) {
            startAsync(operation, result);
            return;
        }
        AsyncOperation.Slot release = (startedAt, failure) -> releaseAfterRun(startedAt,
                failure == null ? Permit.Outcome.SUCCESS : outcomeOf(failure), weight);
        AsyncOperation.start(operation, result, release, observed() ? startTime(events) : SampledListener.UNTIMED);
    }

    /** Releases the slot of an async operation that ran; see {@link AsyncOperation}. */
    private void releaseAfterAsync(long startedAt, Throwable failure) {
        releaseAfterRun(startedAt, failure == null ? Permit.Outcome.SUCCESS : outcomeOf(failure));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Calls with options

    private static boolean isPlain(CallOptions options) {
        return options.weight() == 1 && options.priority() == Priority.NORMAL;
    }

    /** The weight, checked against the current limit: a heavier call could never run. */
    private int weightWithinLimit(CallOptions options) {
        int weight = options.weight();
        slots.checkWeight(weight, options.priority().ordinal());
        return weight;
    }

    @Override
    public <T, X extends Throwable> T call(CallOptions options, ThrowingSupplier<? extends T, X> operation) throws X {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(operation, "operation");
        if (isPlain(options)) {
            return call(operation, options.signal());
        }
        int weight = acquireSlots(options);
        if (!observed()) {
            try {
                return operation.get();
            } finally {
                slots.releaseSlots(weight);
            }
        }
        return runObserved(operation, weight);
    }

    @Override
    public Permit acquireWith(CallOptions options) {
        Objects.requireNonNull(options, "options");
        if (isPlain(options)) {
            return acquire(options.signal());
        }
        return newPermit(acquireSlots(options));
    }

    /** Takes the options' slots for the calling thread, waiting if needed; returns the weight or throws. */
    private int acquireSlots(CallOptions options) {
        int weight = weightWithinLimit(options);
        CancellationSignal signal = options.signal();
        if (signal.isCancelled()) {
            throw Outcomes.cancelledBeforeStart(name, signal);
        }
        int level = options.priority().ordinal();
        long outcome = slots.admitOrObserveFull(weight, level);
        if (outcome == SlotQueue.ADMITTED) {
            reportAdmitted(0, options.priority());
        } else if (outcome != SlotQueue.MUST_WAIT) {
            throw reject(slots.refusal(Rejection.Reason.QUEUE_FULL, outcome, 0L, level));
        } else {
            Waiter.Sync.await(room, signal, weight, options.priority());
        }
        return weight;
    }

    /**
     * Linearizable against limit changes: the weight is checked and the slots are tried at one limit. A try that
     * fails while the limit changed (the sequence lock {@link SlotQueue#limitChanges} moved) decides again at the new
     * limit, so a weight that a lowered limit can no longer hold fails as too heavy (at the change) instead of coming
     * back empty for a limit that was high enough (found by Lincheck's stress run of
     * {@code WeightedBulkheadLinearizabilityTest}: {@code changeMaxConcurrency(1)} racing {@code tryAcquire} of 2).
     */
    @Override
    public Optional<Permit> tryAcquireWith(CallOptions options) {
        Objects.requireNonNull(options, "options");
        int weight = options.weight();
        int level = options.priority().ordinal();
        for (;;) {
            int version = slots.checkWeight(weight, level);
            if (options.signal().isCancelled()) {
                return Optional.empty();
            }
            if (slots.admitOrObserveFull(weight, level) == SlotQueue.ADMITTED) {
                reportAdmitted(0, options.priority());
                return Optional.of(newPermit(weight));
            }
            if (version == slots.limitChanges) {
                return Optional.empty();
            }
        }
    }

    @Override
    public <T> CompletableFuture<T> callAsync(CallOptions options, Supplier<? extends CompletionStage<T>> operation) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(operation, "operation");
        if (isPlain(options)) {
            return callAsync(operation, options.signal());
        }
        CompletableFuture<T> result = new WaiterFuture<>();
        long outcome = admitAsync(options, result);
        if (outcome == SlotQueue.ADMITTED) {
            startAsync(operation, result, options.weight());
        } else if (outcome == SlotQueue.MUST_WAIT) {
            Waiter.Async.ForCall<T> waiter = new Waiter.Async.ForCall<>(room, options.signal(), operation, result);
            waiter.options(options.weight(), options.priority());
            waitAsync(waiter, result);
        }
        return result;
    }

    @Override
    public CompletableFuture<Permit> acquireAsyncWith(CallOptions options) {
        Objects.requireNonNull(options, "options");
        if (isPlain(options)) {
            return acquireAsync(options.signal());
        }
        CompletableFuture<Permit> future = new WaiterFuture<>();
        long outcome = admitAsync(options, future);
        if (outcome == SlotQueue.ADMITTED) {
            future.complete(newPermit(options.weight()));
        } else if (outcome == SlotQueue.MUST_WAIT) {
            Waiter.Async.ForPermit waiter = new Waiter.Async.ForPermit(room, options.signal(), future, true);
            waiter.options(options.weight(), options.priority());
            waitAsync(waiter, future);
        }
        return future;
    }

    /**
     * The lock-free start of an asynchronous weighted call: {@link SlotQueue#ADMITTED} (reported),
     * {@link SlotQueue#MUST_WAIT}, or
     * any other value when {@code future} was completed exceptionally (weight, cancellation, full queue).
     */
    private long admitAsync(CallOptions options, CompletableFuture<?> future) {
        int weight;
        try {
            weight = weightWithinLimit(options);
        } catch (IllegalArgumentException tooHeavy) {
            future.completeExceptionally(tooHeavy);
            return 0L;
        }
        if (options.signal().isCancelled()) {
            future.completeExceptionally(Outcomes.cancelledBeforeStart(name, options.signal()));
            return 0L;
        }
        int level = options.priority().ordinal();
        long outcome = slots.admitOrObserveFull(weight, level);
        if (outcome == SlotQueue.ADMITTED) {
            reportAdmitted(0, options.priority());
        } else if (outcome != SlotQueue.MUST_WAIT) {
            future.completeExceptionally(reject(slots.refusal(Rejection.Reason.QUEUE_FULL, outcome, 0L, level)));
        }
        return outcome;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Drain

    @Override
    public DrainResult drain(Duration deadline) {
        Objects.requireNonNull(deadline, "deadline");
        if (deadline.isNegative()) {
            throw new IllegalArgumentException("deadline must not be negative but was " + deadline);
        }
        int refused = slots.closeQueue();
        CompletableFuture<Void> idle = slots.drained();
        long waited = 0L;
        if (!deadline.isZero() && !idle.isDone()) {
            // Real time, whatever the ticker, and after the closing: waited() is the wait for running calls only.
            long start = System.nanoTime();
            try {
                idle.get(saturatedNanos(deadline), TimeUnit.NANOSECONDS);
            } catch (TimeoutException deadlinePassed) {
                // What still runs is reported below.
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException impossible) {
                throw new IllegalStateException("the drain future never fails", impossible);
            }
            waited = System.nanoTime() - start;
        }
        return new DrainResult(name, refused, executingCount(), Duration.ofNanos(waited));
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public void close() {
        slots.closeQueue();
    }

    @Override
    public boolean isClosed() {
        return slots.closed();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Outcomes

    /** Reports the refusal, runs the overflow handler on the current thread, and makes the exception. */
    private BulkheadRejectedException reject(Rejection rejection) {
        return reject(rejection, null);
    }

    /** {@link #reject(Rejection)} for a queued call, with the contexts captured when it started to wait. */
    private BulkheadRejectedException reject(Rejection rejection, BulkheadEvents.CallerContexts contexts) {
        FlightRecorderEvents.rejected(rejection);
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.rejected(rejection, contexts);
        }
        return Outcomes.reject(rejection, null, rejectionHandler);
    }

    /** Refuses a call that found the queue full in {@code observedState}; see {@link #quietQueueFull}. */
    private BulkheadRejectedException rejectQueueFull(long observedState) {
        return events != null || rejectionHandler != null
                ? reject(slots.refusal(Rejection.Reason.QUEUE_FULL, observedState, 0L, Waiter.NORMAL))
                : quietQueueFull(observedState);
    }

    /**
     * Refuses a call that found the queue full in {@code observedState} when nobody needs the {@link Rejection} now
     * (no listener, no overflow handler): the exception is the refusal's only allocation. It keeps the counts and
     * the cached facts of the limits ({@link SlotQueue#queueFullTemplate()}), and builds its {@code Rejection} when
     * asked (see {@link BulkheadRejectedException}).
     */
    private BulkheadRejectedException quietQueueFull(long observedState) {
        Rejection template = slots.queueFullTemplate();
        int executing = Math.max(0, template.maxConcurrency() - SlotQueue.available(observedState));
        int queued = SlotQueue.waiting(observedState);
        FlightRecorderEvents.rejected(template, executing, queued);
        return RejectionAccess.withCounts(template, executing, queued);
    }

    /** Reports the admission of a call made without options (so of {@link Priority#NORMAL}). */
    private void reportAdmitted(long waitedNanos) {
        reportAdmitted(waitedNanos, Priority.NORMAL);
    }

    private void reportAdmitted(long waitedNanos, Priority priority) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.admitted(waitedNanos, priority);
        }
    }

    private void reportAdmitted(long waitedNanos, Priority priority, BulkheadEvents.CallerContexts contexts) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.admitted(waitedNanos, priority, contexts);
        }
    }

    private void reportCancelled(long waitedNanos, Priority priority, BulkheadEvents.CallerContexts contexts) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.cancelled(waitedNanos, priority, contexts);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Configuration and counts

    @Override
    public Subscription addListener(BulkheadListener listener) {
        Objects.requireNonNull(listener, "listener");
        // Copy-on-write, as in util.ListenerList, but of this field: a dispatcher is never mutated, only replaced by
        // one made from a copy of its listeners, so the hot path's one read of `events` sees a whole list or null.
        // A change that loses the race remakes its copy from the winner's and tries again, so none is lost.
        ListenerFailureLog attachment = new ListenerFailureLog();
        int traits = BulkheadEvents.traitsOf(listener);
        BulkheadEvents current;
        do {
            current = events;
        } while (!EVENTS.compareAndSet(this, current,
                BulkheadEvents.with(current, name, listener, traits, attachment)));
        return () -> {
            BulkheadEvents before;
            BulkheadEvents after;
            do {
                before = events;
                after = BulkheadEvents.without(before, attachment);
            } while (before != after && !EVENTS.compareAndSet(this, before, after));
        };
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Duration> maxWait() {
        return Optional.ofNullable(slots.maxWait());
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
        int reserved = slots.headroom[slots.headroom.length - 1];
        if (newMaxConcurrency <= reserved) {
            throw new IllegalArgumentException("maxConcurrency (" + newMaxConcurrency + ") of bulkhead '" + name
                    + "' must exceed the " + reserved + " slots reserved for higher priorities (reserve), so that "
                    + "every priority can run");
        }
        slots.changeLimit(-1, newMaxConcurrency);
    }

    /**
     * Moves the limit for the adaptive algorithm, only if it still is {@code expected}, so that concurrent
     * decisions based on the same value do not compound.
     *
     * @return whether the limit changed
     */
    @Override
    public boolean adaptLimit(int expected, int newLimit) {
        return slots.changeLimit(expected, newLimit);
    }

    @Override
    public void changeMaxQueue(int newMaxQueue) {
        slots.changeMaxQueue(Arguments.requireMaxQueue(newMaxQueue));
    }

    @Override
    public void changeMaxWait(Duration newMaxWait) {
        if (newMaxWait != null) {
            Arguments.requirePositive(newMaxWait, "maxWait");
        }
        slots.changeMaxWait(newMaxWait);
    }

    @Override
    public int maxConcurrency() {
        return slots.maxConcurrency();
    }

    @Override
    public int executingCount() {
        return slots.executingCount();
    }

    @Override
    public int maxQueue() {
        return slots.maxQueue();
    }

    @Override
    public int queuedCount() {
        return slots.queuedCount();
    }

    // ---------------------------------------------------------------------------------------------------------
    // What the waiters and permits see

    /**
     * This bulkhead as its waiters ({@link Waiter.Room}) and permits ({@link LocalPermit.Slots}) see it: the reports
     * of a wait's end, the queue's joining and leaving, the release of slots. One object per bulkhead, made with it.
     */
    private final class Room implements Waiter.Room, LocalPermit.Slots {

        @Override
        public String name() {
            return name;
        }

        @Override
        public Ticker ticker() {
            return ticker;
        }

        @Override
        public Scheduler scheduler() {
            return scheduler;
        }

        @Override
        public Object beginWait() {
            return FlightRecorderEvents.beginWait(name, slots.queuedCount());
        }

        @Override
        public BulkheadEvents.CallerContexts captureCallerContexts() {
            BulkheadEvents listeners = events;
            return listeners == null ? null : listeners.captureCallerContexts();
        }

        @Override
        public Rejection enqueue(Waiter waiter) {
            return slots.enqueue(waiter);
        }

        @Override
        public void removeAbandoned(Waiter waiter) {
            slots.removeAbandoned(waiter);
        }

        @Override
        public void releaseSlots(int weight) {
            slots.releaseSlots(weight);
        }

        /**
         * A weight above the limit here means the limit was lowered between the call's own check and its joining: it
         * fails as too heavy, exactly as if the limit had been lowered first (linearizable at the change), rather than
         * as a waiter refused by the change.
         */
        @Override
        public RuntimeException refusedOnArrival(Rejection rejection, Waiter waiter) {
            if (rejection.reason() == Rejection.Reason.WEIGHT_EXCEEDS_LIMIT) {
                return slots.tooHeavy(waiter.weight, rejection.maxConcurrency(), rejection.priority().ordinal());
            }
            return waiter.reported() ? reject(rejection) : new BulkheadRejectedException(rejection);
        }

        @Override
        public void admittedOnArrival(Waiter waiter) {
            reportAdmitted(0, waiter.priorityLevel());
        }

        @Override
        public void admitted(Waiter waiter, long waitedNanos) {
            FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.ADMITTED);
            reportAdmitted(waitedNanos, waiter.priorityLevel(), waiter.callerContexts);
        }

        @Override
        public void cancelled(Waiter waiter, long waitedNanos) {
            FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.CANCELLED);
            if (waiter.reported()) {
                reportCancelled(waitedNanos, waiter.priorityLevel(), waiter.callerContexts);
            }
        }

        @Override
        public BulkheadRejectedException pushedOut(Waiter waiter, long waitedNanos) {
            Rejection.Reason reason = waiter.status() == Waiter.REFUSED ? waiter.refusal : Rejection.Reason.EVICTED;
            FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.pushedOut(reason));
            return rejectWaiter(waiter, reason, waitedNanos);
        }

        @Override
        public BulkheadRejectedException timedOut(Waiter waiter, long waitedNanos) {
            FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.TIMED_OUT);
            return rejectWaiter(waiter, Rejection.Reason.WAIT_TIMEOUT, waitedNanos);
        }

        /**
         * The refusal of a waiter that ended without a slot, with the current counts: reported with its handler, or
         * only made for a waiter not {@link Waiter#reported}.
         */
        private BulkheadRejectedException rejectWaiter(Waiter waiter, Rejection.Reason reason, long waitedNanos) {
            Rejection rejection = slots.refusal(reason, slots.stateWord(), waitedNanos, waiter.priority);
            return waiter.reported() ? reject(rejection, waiter.callerContexts)
                    : new BulkheadRejectedException(rejection);
        }

        @Override
        public Permit newPermit(int weight) {
            return InProcessBulkhead.this.newPermit(weight);
        }

        @Override
        public <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result,
                                   int weight) {
            InProcessBulkhead.this.startAsync(operation, result, weight);
        }

        @Override
        public void releaseAfterRun(long startedAt, Permit.Outcome outcome, int weight) {
            InProcessBulkhead.this.releaseAfterRun(startedAt, outcome, weight);
        }

        @Override
        public Permit.Outcome outcomeOf(Throwable failure) {
            return InProcessBulkhead.this.outcomeOf(failure);
        }

        /** What a thread dump shows of a thread parked on this bulkhead. */
        @Override
        public String toString() {
            return InProcessBulkhead.this.toString();
        }
    }

    @Override
    public String toString() {
        return "Bulkhead[" + name + ": executing " + executingCount() + " of " + slots.maxConcurrency + ", queued "
                + queuedCount() + " of " + slots.maxQueue + "]";
    }
}
