package dev.bulwark.internal;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.QueueOrder;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Subscription;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import dev.bulwark.internal.stats.SampledListener;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The in-process {@link Bulkhead}.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>State word.</b> The number of waiting calls and the number of available slots live in one 64-bit word,
 * {@link #state}: the high 32 bits hold {@code waiting} (0 .. {@code Integer.MAX_VALUE}, so the word is never
 * negative), the low 32 bits hold {@code available} as a signed int ({@code maxConcurrency - executing}; it is
 * negative after the limit was lowered below the number of running calls). Because both halves change in one
 * compare-and-set, a newcomer can neither exceed the limit (no check-then-act) nor slip past a waiter (no
 * barging).
 *
 * <p><b>Fast paths.</b> Admission: if {@code waiting == 0 && available > 0}, CAS {@code available - 1}. Release:
 * if {@code waiting == 0}, CAS {@code available + 1}. No lock, no allocation. Refusal when the queue is full is
 * decided from one read of the word, also without the lock.
 *
 * <p><b>Slow paths</b> take {@link #lock}, which guards the doubly linked waiter queue. Joining the queue
 * re-checks the word under the lock and CASes {@code waiting + 1} before linking the node. A release that sees
 * {@code waiting > 0} takes the lock and hands its slot directly to the head waiter: {@code available} stays,
 * {@code waiting - 1}. A node is granted by its own CAS (see {@link Waiter}); a node that was cancelled or
 * timed out meanwhile is unlinked and the next one tried; if none is left the slot becomes available.
 *
 * <p><b>Invariants</b> (hold whenever {@link #lock} is free):
 * <ol>
 *   <li>{@code waiting} equals the number of linked nodes; it changes only under the lock.</li>
 *   <li>{@code waiting > 0} implies {@code available <= 0}: a slot is never free while someone waits. Hence,
 *       while {@code waiting > 0}, nobody outside the lock can change the word (both fast paths need
 *       {@code waiting == 0}), and every change to it is serialized by the lock.</li>
 *   <li>Every slot taken (fast path, grant, or grant on arrival) is released exactly once: by the operation's
 *       {@code finally}, by its stage's completion, by a {@link LocalPermit}'s one-shot CAS, or, when a grant
 *       races a cancellation, by the waiter that won the slot but no longer wants it.</li>
 * </ol>
 *
 * <p><b>Waking.</b> Granted waiters are woken after the lock is released: a sync waiter is unparked, an async
 * waiter is started through {@link GrantDispatch}'s per-thread trampoline so that long chains of
 * immediately-completing operations drain iteratively. No user code (operations, handlers, listeners, future
 * callbacks) ever runs under the lock.
 *
 * <p><b>Limit changes</b> happen under the lock and add the difference to {@code available}; raising it grants
 * waiters at once. {@link #limitChanges} is a sequence lock that lets {@link #executingCount()} read the limit
 * and the word as a consistent pair without the lock. An adaptive limit ({@link AdaptiveLimiter}) changes it the
 * same way, through {@link #adaptLimit(int, int)}, which applies a decision only if the limit still has the value
 * the decision was based on.
 *
 * <p><b>Queue order.</b> FIFO grants from the head of the queue. LIFO grants from the tail, and a newcomer that
 * finds the queue exactly at its limit unlinks the head (the oldest waiter) under the lock, marks it EVICTED with
 * the same compare-and-set that decides every waiter's fate, and takes its place; so LIFO refusals are decided
 * under the lock (the lock-free refusal of the fast path applies only to FIFO). The evicted waiter is told after
 * the lock is released.
 */
public final class InProcessBulkhead implements Bulkhead, ChainStep {

    private static final VarHandle STATE;
    private static final VarHandle EVENTS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(InProcessBulkhead.class, "state", long.class);
            EVENTS = lookup.findVarHandle(InProcessBulkhead.class, "events", BulkheadEvents.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #admitOrObserveFull()}: the caller took a slot. */
    private static final long ADMITTED = -1L;
    /** {@link #admitOrObserveFull()}: no slot is free but the queue has room. */
    private static final long MUST_WAIT = -2L;

    private final BulkheadConfig config;
    private final String name;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final Consumer<? super Rejection> rejectionHandler;
    /** Serve the newest waiter first and let a newcomer evict the oldest when the queue is full. */
    private final boolean lifo;
    /** {@code null} for a fixed limit. */
    private final AdaptiveLimiter limiter;
    /**
     * {@code null} when no listener is registered: the hot path then reads no clock. Replaced (never mutated) when
     * a listener is attached or detached.
     */
    private volatile BulkheadEvents events;

    /** {@code waiting} in the high 32 bits, signed {@code available} in the low 32 bits. */
    private volatile long state;
    private volatile int maxConcurrency;
    private volatile int maxQueue;
    private volatile Duration maxWait;
    private volatile long maxWaitNanos;
    /** Sequence lock for limit changes: odd while a change is in progress. Written under {@link #lock}. */
    private volatile int limitChanges;

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private Waiter head;
    private Waiter tail;

    /**
     * Creates a bulkhead with all slots free and nobody waiting.
     *
     * @param config the configuration
     */
    public InProcessBulkhead(BulkheadConfig config) {
        this.config = config;
        this.name = config.name();
        this.ticker = config.ticker();
        this.scheduler = config.scheduler();
        this.rejectionHandler = config.rejectionHandler().orElse(null);
        this.events = BulkheadEvents.of(name, config.listeners());
        this.maxConcurrency = config.maxConcurrency();
        this.maxQueue = config.maxQueue();
        this.maxWait = config.maxWait().orElse(null);
        this.maxWaitNanos = Arguments.boundedNanos(maxWait);
        this.state = pack(0, config.maxConcurrency());
        this.lifo = config.queueOrder() == QueueOrder.LIFO;
        this.limiter = config.adaptiveLimit().map(limit -> AdaptiveLimiter.of(limit, config.maxConcurrency()))
                .orElse(null);
    }

    // ---------------------------------------------------------------------------------------------------------
    // State word

    private static int waiting(long state) {
        return (int) (state >>> 32);
    }

    private static int available(long state) {
        return (int) state;
    }

    private static long pack(int waiting, int available) {
        return ((long) waiting << 32) | (available & 0xFFFF_FFFFL);
    }

    /** Adds to both halves by CAS; used under the lock, where only the fast paths can race (when waiting is 0). */
    private void addToState(int waitingDelta, int availableDelta) {
        long current;
        do {
            current = state;
        } while (!STATE.compareAndSet(this, current,
                pack(waiting(current) + waitingDelta, available(current) + availableDelta)));
    }

    /**
     * Takes a slot if one is free and nobody waits. Lock-free and allocation-free.
     *
     * @return {@link #ADMITTED}; {@link #MUST_WAIT} when the caller may queue; otherwise the (non-negative) state
     *     word in which the queue was seen full, which is the linearization point of the refusal
     */
    private long admitOrObserveFull() {
        long current = state;
        for (;;) {
            int waiting = waiting(current);
            if (waiting == 0 && available(current) > 0) {
                // available > 0, so decrementing the word touches only the low half.
                if (STATE.compareAndSet(this, current, current - 1)) {
                    return ADMITTED;
                }
                current = state;
            } else if (waiting >= maxQueue) {
                int limit = maxQueue;
                // LIFO at exactly the queue limit: the newcomer evicts the oldest waiter, under the lock.
                return lifo && limit > 0 && waiting == limit ? MUST_WAIT : current;
            } else {
                return MUST_WAIT;
            }
        }
    }

    /**
     * Returns a slot. Lock-free when nobody waits; otherwise hands the slot to the next waiter under the lock.
     * Reports nothing to listeners: callers that ran an operation use {@link #releaseAfterRun(long, Permit.Outcome)}.
     */
    void releaseUnused() {
        long current = state;
        while (waiting(current) == 0) {
            if (STATE.compareAndSet(this, current, pack(0, available(current) + 1))) {
                return;
            }
            current = state;
        }
        Waiter granted = null;
        lock.lock();
        try {
            // Under the lock a waiting count above zero is stable, and then available <= 0 (invariant 2).
            // Negative: the limit was lowered and this slot must retire instead of being handed on.
            if (available(state) >= 0) {
                granted = pollGrantable();
            }
            if (granted == null) {
                addToState(0, 1);
            }
        } finally {
            lock.unlock();
        }
        if (granted != null) {
            granted.granted();
        }
    }

    /**
     * Reports the execution time, then releases a slot whose operation ran. Reporting first keeps the event order
     * causal for listeners that count calls in flight: the next waiter's "admitted" never precedes this "released".
     */
    void releaseAfterRun(long startedAt, Permit.Outcome outcome) {
        BulkheadEvents listeners = events;
        AdaptiveLimiter adaptive = limiter;
        if (listeners == null && adaptive == null) {
            releaseUnused();
            return;
        }
        try {
            boolean untimed = startedAt == SampledListener.UNTIMED;
            long endedAt = untimed ? startedAt : ticker.read();
            long executionNanos = untimed ? startedAt : endedAt - startedAt;
            if (listeners != null) {
                listeners.released(executionNanos, endedAt);
            }
            if (adaptive != null) {
                adaptive.sample(this, startedAt, executionNanos, executingCount(), outcome);
            }
        } finally {
            releaseUnused();
        }
    }

    /** Whether finished calls must be reported (to listeners or the adaptive limit). One volatile read. */
    private boolean observed() {
        return events != null || limiter != null;
    }

    /**
     * The start of an observed call: a clock reading, or {@link SampledListener#UNTIMED} when only sampled listeners
     * listen and their sampler skips this call (see {@link BulkheadEvents#startTime}).
     */
    private long startTime() {
        BulkheadEvents listeners = events;
        return limiter != null || listeners == null ? ticker.read() : listeners.startTime(ticker);
    }

    /** How a failed call counts for the adaptive limit. */
    Permit.Outcome outcomeOf(Throwable failure) {
        AdaptiveLimiter adaptive = limiter;
        return adaptive == null ? Permit.Outcome.IGNORED : adaptive.classify(failure);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Queue (all under lock)

    /**
     * Unlinks waiters from the head until one accepts the slot. The caller holds the lock and owns a slot to
     * give; if a waiter is returned the slot is now its own and {@code available} must not change.
     */
    private Waiter pollGrantable() {
        int removed = 0;
        Waiter granted = null;
        for (Waiter candidate = lifo ? tail : head; candidate != null; candidate = lifo ? tail : head) {
            unlink(candidate);
            removed++;
            if (candidate.tryGrant()) {
                granted = candidate;
                break;
            }
            // Lost to a cancellation or timeout: that waiter's owner will find it unlinked and do nothing more.
        }
        if (removed != 0) {
            addToState(-removed, 0);
        }
        return granted;
    }

    private void linkLast(Waiter waiter) {
        Waiter last = tail;
        waiter.previous = last;
        if (last == null) {
            head = waiter;
        } else {
            last.next = waiter;
        }
        tail = waiter;
        waiter.linked = true;
    }

    private void unlink(Waiter waiter) {
        Waiter before = waiter.previous;
        Waiter after = waiter.next;
        if (before == null) {
            head = after;
        } else {
            before.next = after;
        }
        if (after == null) {
            tail = before;
        } else {
            after.previous = before;
        }
        waiter.previous = null;
        waiter.next = null;
        waiter.linked = false;
    }

    /**
     * Queues a waiter, or grants it a slot at once if one is free by the time the lock is held.
     *
     * @return {@code null} when queued or granted on arrival ({@link Waiter#grantedOnArrival} tells which); the
     *     rejection when full
     */
    private Rejection enqueue(Waiter waiter) {
        Waiter evicted = null;
        Rejection rejection = null;
        lock.lock();
        try {
            long current = state;
            for (;;) {
                int waiting = waiting(current);
                int available = available(current);
                if (waiting == 0 && available > 0) {
                    if (STATE.compareAndSet(this, current, current - 1)) {
                        waiter.grantOnArrival();
                        return null;
                    }
                } else if (waiting >= maxQueue) {
                    if (lifo && waiting == maxQueue && waiting > 0) {
                        evicted = evictOldest();
                        if (evicted != null || waiting(state) < maxQueue) {
                            current = state;
                            continue; // room was made: link the newcomer
                        }
                    }
                    rejection = queueFull(current);
                    break;
                } else if (STATE.compareAndSet(this, current, pack(waiting + 1, available))) {
                    // Linked after the CAS but still under the lock: a releaser that sees waiting > 0 takes the
                    // lock and therefore finds the node.
                    linkLast(waiter);
                    break;
                }
                current = state;
            }
        } finally {
            lock.unlock();
        }
        if (evicted != null) {
            evicted.evicted();
        }
        return rejection;
    }

    /**
     * LIFO only, under the lock, with the queue at its limit: unlinks the oldest waiter and, if it still waits,
     * marks it evicted (the caller tells it after unlocking). Waiters that were already abandoned are unlinked on
     * the way, which makes room too.
     */
    private Waiter evictOldest() {
        int removed = 0;
        Waiter evicted = null;
        for (Waiter oldest = head; oldest != null; oldest = head) {
            unlink(oldest);
            removed++;
            if (oldest.tryAbandon(Waiter.EVICTED)) {
                evicted = oldest;
                break;
            }
        }
        if (removed != 0) {
            addToState(-removed, 0);
        }
        return evicted;
    }

    /** Unlinks a waiter whose owner won the CAS to CANCELLED or TIMED_OUT, unless a releaser already did. */
    void removeAbandoned(Waiter waiter) {
        lock.lock();
        try {
            if (waiter.linked) {
                unlink(waiter);
                addToState(-1, 0);
            }
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sync calls

    @Override
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        acquireSlot(signal);
        if (!observed()) {
            try {
                return operation.get();
            } finally {
                releaseUnused();
            }
        }
        return runObserved(operation);
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
        });
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
        return runObserved(() -> chain.proceed(next, operation, signal));
    }

    /** Runs an admitted operation, timing it and classifying its outcome for listeners and the adaptive limit. */
    private <T, X extends Throwable> T runObserved(ThrowingSupplier<? extends T, X> operation) throws X {
        long startedAt = startTime();
        T result;
        try {
            result = operation.get();
        } catch (Throwable failure) {
            releaseAfterRun(startedAt, outcomeOf(failure));
            throw Throwables.<X>rethrow(failure);
        }
        releaseAfterRun(startedAt, Permit.Outcome.SUCCESS);
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
        return new LocalPermit(this, observed() ? startTime() : 0L);
    }

    /** Takes a slot for the calling thread, waiting if needed; throws if it cannot. */
    private void acquireSlot(CancellationSignal signal) {
        if (Objects.requireNonNull(signal, "signal").isCancelled()) {
            throw cancelledBeforeStart(signal);
        }
        long outcome = admitOrObserveFull();
        if (outcome == ADMITTED) {
            reportAdmitted(0);
            return;
        }
        if (outcome != MUST_WAIT) {
            throw reject(queueFull(outcome));
        }
        awaitSlot(signal);
    }

    private void awaitSlot(CancellationSignal signal) {
        if (Thread.currentThread().isInterrupted()) {
            throw interruptedWhileQueued();
        }
        SyncWaiter waiter = new SyncWaiter(this, signal, ticker.read(), maxWaitNanos);
        Rejection rejection = enqueue(waiter);
        if (rejection != null) {
            throw reject(rejection);
        }
        if (waiter.grantedOnArrival) {
            reportAdmitted(0);
            return;
        }
        GrantDispatch.runPendingBeforeBlocking();
        CancellationSignal.Registration registration = signal.canBeCancelled() ? signal.onCancel(waiter) : null;
        boolean interrupted = false;
        try {
            while (waiter.status == Waiter.WAITING) {
                if (waiter.timed) {
                    long remaining = waiter.deadline - ticker.read();
                    if (remaining <= 0L) {
                        if (waiter.tryAbandon(Waiter.TIMED_OUT)) {
                            removeAbandoned(waiter);
                        }
                        continue;
                    }
                    LockSupport.parkNanos(this, remaining);
                } else {
                    LockSupport.park(this);
                }
                if (Thread.interrupted()) {
                    interrupted = true;
                    if (waiter.tryAbandon(Waiter.CANCELLED)) {
                        removeAbandoned(waiter);
                    }
                }
            }
        } finally {
            if (registration != null) {
                registration.close();
            }
        }
        long waited = ticker.read() - waiter.enqueuedAt;
        int fate = waiter.status;
        if (fate == Waiter.GRANTED && !interrupted && !signal.isCancelled()) {
            waiterAdmitted(waiter, waited);
            return;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (fate == Waiter.TIMED_OUT) {
            throw waiterTimedOut(waiter, waited);
        }
        if (fate == Waiter.EVICTED) {
            throw waiterEvicted(waiter, waited);
        }
        if (fate == Waiter.GRANTED) {
            // Granted at the same instant the caller gave up: pass the slot on instead of running for nobody.
            releaseUnused();
        }
        waiterCancelled(waiter, waited);
        throw interrupted ? interruptedWhileQueued() : cancelledWhileQueued(signal);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Async calls

    @Override
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        CompletableFuture<T> result = new CompletableFuture<>();
        if (signal.isCancelled()) {
            result.completeExceptionally(cancelledBeforeStart(signal));
            return result;
        }
        long outcome = admitOrObserveFull();
        if (outcome == ADMITTED) {
            reportAdmitted(0);
            startAsync(operation, result);
        } else if (outcome != MUST_WAIT) {
            result.completeExceptionally(reject(queueFull(outcome)));
        } else {
            waitAsync(new AsyncCallWaiter<>(this, signal, ticker.read(), maxWaitNanos, operation, result), result);
        }
        return result;
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        Objects.requireNonNull(signal, "signal");
        if (signal.isCancelled()) {
            return CompletableFuture.failedFuture(cancelledBeforeStart(signal));
        }
        long outcome = admitOrObserveFull();
        if (outcome == ADMITTED) {
            reportAdmitted(0);
            return CompletableFuture.completedFuture(newPermit());
        }
        if (outcome != MUST_WAIT) {
            return CompletableFuture.failedFuture(reject(queueFull(outcome)));
        }
        CompletableFuture<Permit> future = new CompletableFuture<>();
        waitAsync(new AsyncPermitWaiter(this, signal, ticker.read(), maxWaitNanos, future), future);
        return future;
    }

    private void waitAsync(AsyncWaiter waiter, CompletableFuture<?> callerFuture) {
        Rejection rejection = enqueue(waiter);
        if (rejection != null) {
            callerFuture.completeExceptionally(reject(rejection));
        } else if (waiter.grantedOnArrival) {
            reportAdmitted(0);
            waiter.begin();
        } else {
            waiter.arm(scheduler);
        }
    }

    /** Runs an async operation that holds a slot, and releases the slot when its stage completes. */
    <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result) {
        long startedAt = observed() ? startTime() : 0L;
        CompletionStage<T> stage;
        try {
            stage = operation.get();
            if (stage == null) {
                throw new NullPointerException("operation returned null instead of a CompletionStage");
            }
        } catch (Throwable failure) {
            releaseAfterRun(startedAt, outcomeOf(failure));
            result.completeExceptionally(failure);
            return;
        }
        // An already-successful plain CompletableFuture is relayed without registering a callback (no
        // allocation). Only the exact class: subclasses may override these methods (minimalCompletionStage()'s
        // throws UnsupportedOperationException from isDone()).
        if (stage.getClass() == CompletableFuture.class) {
            CompletableFuture<T> future = (CompletableFuture<T>) stage;
            if (future.isDone() && !future.isCompletedExceptionally()) {
                T value = future.getNow(null);
                releaseAfterRun(startedAt, Permit.Outcome.SUCCESS);
                result.complete(value);
                return;
            }
        }
        Completion<T> completion = new Completion<>(this, result, startedAt);
        try {
            stage.whenComplete(completion);
        } catch (Throwable brokenStage) {
            // A foreign stage that cannot take a callback would otherwise keep the slot forever. Completion is
            // one-shot, so if the callback did get registered and fires later, nothing is released twice.
            completion.accept(null, brokenStage);
        }
    }

    /**
     * Releases the slot when the operation's own stage completes, then relays its outcome.
     *
     * <p>Invariant: {@link #done} goes from 0 to 1 once by compare-and-set; only that thread releases.
     */
    private static final class Completion<T> implements BiConsumer<T, Throwable> {
        private static final VarHandle DONE;

        static {
            try {
                DONE = MethodHandles.lookup().findVarHandle(Completion.class, "done", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final InProcessBulkhead bulkhead;
        private final CompletableFuture<T> result;
        private final long startedAt;
        private volatile int done;

        Completion(InProcessBulkhead bulkhead, CompletableFuture<T> result, long startedAt) {
            this.bulkhead = bulkhead;
            this.result = result;
            this.startedAt = startedAt;
        }

        @Override
        public void accept(T value, Throwable failure) {
            if (!DONE.compareAndSet(this, 0, 1)) {
                return;
            }
            if (failure == null) {
                bulkhead.releaseAfterRun(startedAt, Permit.Outcome.SUCCESS);
                result.complete(value);
            } else {
                // A stage that failed through a dependent carries a CompletionException around the real cause;
                // relay the cause itself so the caller sees the operation's own exception, wrapped once at most.
                Throwable cause = Stages.unwrap(failure);
                bulkhead.releaseAfterRun(startedAt, bulkhead.outcomeOf(cause));
                result.completeExceptionally(cause);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Outcomes

    Rejection queueFull(long observedState) {
        int limit = maxConcurrency;
        return new Rejection(name, Rejection.Reason.QUEUE_FULL, limit, maxQueue,
                Math.max(0, limit - available(observedState)), waiting(observedState), Duration.ZERO);
    }

    Rejection waitTimeout(long waitedNanos) {
        int limit = maxConcurrency;
        long current = state;
        return new Rejection(name, Rejection.Reason.WAIT_TIMEOUT, limit, maxQueue,
                Math.max(0, limit - available(current)), waiting(current), BulkheadEvents.duration(waitedNanos));
    }

    /** Reports the refusal, runs the overflow handler on the current thread, and makes the exception. */
    BulkheadRejectedException reject(Rejection rejection) {
        FlightRecorderEvents.rejected(rejection);
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.rejected(rejection);
        }
        BulkheadRejectedException exception = new BulkheadRejectedException(rejection);
        Consumer<? super Rejection> handler = rejectionHandler;
        if (handler != null) {
            try {
                handler.accept(rejection);
            } catch (Throwable failure) {
                exception.addSuppressed(failure);
            }
        }
        return exception;
    }

    private CancellationException cancelledBeforeStart(CancellationSignal signal) {
        CancellationException exception =
                new CancellationException("Bulkhead '" + name + "': the call was cancelled before it started");
        signal.reason().ifPresent(exception::initCause);
        return exception;
    }

    CancellationException cancelledWhileQueued(CancellationSignal signal) {
        CancellationException exception =
                new CancellationException("Bulkhead '" + name + "': the call was cancelled while queued");
        signal.reason().ifPresent(exception::initCause);
        return exception;
    }

    private CancellationException interruptedWhileQueued() {
        CancellationException exception =
                new CancellationException("Bulkhead '" + name + "': the thread was interrupted while queued");
        exception.initCause(new InterruptedException("interrupted while waiting for a slot of bulkhead '" + name
                + "'"));
        return exception;
    }

    /** A queued waiter got its slot and will run. */
    void waiterAdmitted(Waiter waiter, long waitedNanos) {
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.ADMITTED);
        reportAdmitted(waitedNanos);
    }

    /** A queued waiter left without running because its caller gave up. */
    void waiterCancelled(Waiter waiter, long waitedNanos) {
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.CANCELLED);
        reportCancelled(waitedNanos);
    }

    /** A queued waiter was evicted by a newer one (LIFO): reports, runs the handler, and makes the exception. */
    BulkheadRejectedException waiterEvicted(Waiter waiter, long waitedNanos) {
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.EVICTED);
        int limit = maxConcurrency;
        long current = state;
        return reject(new Rejection(name, Rejection.Reason.EVICTED, limit, maxQueue,
                Math.max(0, limit - available(current)), waiting(current), BulkheadEvents.duration(waitedNanos)));
    }

    /** A queued waiter reached the maximum wait: reports, runs the handler, and makes the exception. */
    BulkheadRejectedException waiterTimedOut(Waiter waiter, long waitedNanos) {
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.TIMED_OUT);
        return reject(waitTimeout(waitedNanos));
    }

    void reportAdmitted(long waitedNanos) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.admitted(waitedNanos);
        }
    }

    void reportCancelled(long waitedNanos) {
        BulkheadEvents listeners = events;
        if (listeners != null) {
            listeners.cancelled(waitedNanos);
        }
    }

    Ticker ticker() {
        return ticker;
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
    public int maxConcurrency() {
        // Read through the sequence lock, like executingCount(): the field is written before the state word during
        // a change, so a plain read could show a raised limit whose slot does not exist yet (found by Lincheck).
        for (;;) {
            int version = limitChanges;
            int limit = maxConcurrency;
            if ((version & 1) == 0 && version == limitChanges) {
                return limit;
            }
            lock.lock();
            lock.unlock();
        }
    }

    @Override
    public int maxQueue() {
        return maxQueue;
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
    public int executingCount() {
        for (;;) {
            int version = limitChanges;
            int limit = maxConcurrency;
            long current = state;
            if ((version & 1) == 0 && version == limitChanges) {
                return Math.max(0, limit - available(current));
            }
            // A limit change is in progress under the lock; wait for it rather than spin.
            lock.lock();
            lock.unlock();
        }
    }

    @Override
    public int queuedCount() {
        return waiting(state);
    }

    @Override
    public void changeMaxConcurrency(int newMaxConcurrency) {
        Arguments.requireMaxConcurrency(newMaxConcurrency);
        changeLimit(-1, newMaxConcurrency);
    }

    /**
     * Moves the limit for the adaptive algorithm, only if it still is {@code expected}, so that concurrent
     * decisions based on the same value do not compound.
     *
     * @return whether the limit changed
     */
    boolean adaptLimit(int expected, int newLimit) {
        return changeLimit(expected, newLimit);
    }

    /** Changes the limit (if {@code expected} is -1 or matches) and grants waiters a raise makes room for. */
    private boolean changeLimit(int expected, int newMaxConcurrency) {
        List<Waiter> granted = null;
        lock.lock();
        try {
            int delta = newMaxConcurrency - maxConcurrency;
            if (delta == 0 || (expected != -1 && expected != maxConcurrency)) {
                return false;
            }
            limitChanges++;
            maxConcurrency = newMaxConcurrency;
            addToState(0, delta);
            limitChanges++;
            Waiter next;
            while (available(state) > 0 && (next = pollGrantable()) != null) {
                addToState(0, -1);
                if (granted == null) {
                    granted = new ArrayList<>();
                }
                granted.add(next);
            }
        } finally {
            lock.unlock();
        }
        if (granted != null) {
            for (Waiter waiter : granted) {
                waiter.granted();
            }
        }
        return true;
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
