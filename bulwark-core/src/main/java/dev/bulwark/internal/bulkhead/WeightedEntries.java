package dev.bulwark.internal.bulkhead;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.RejectionAccess;
import dev.bulwark.internal.spi.WaiterFuture;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The entry points of an {@link InProcessBulkhead} that take {@link CallOptions} (weight, priority, signal), and
 * its drain. Kept apart from the single-slot entry points so that those stay exactly as short as they were: options
 * of weight 1 and {@link Priority#NORMAL} go straight to them, anything else comes through here to the weighted
 * admission of {@link SlotQueue} ({@link #admitOrObserveFull(int, int)}) and a waiter carrying its weight and
 * priority.
 *
 * <p><b>Drain</b> sets the closed bit and refuses the queue under the lock ({@link #closeQueue()}), then parks the
 * draining thread on one future that the release freeing the last slot completes: no thread per waiter, no
 * polling. Each drain waits on the same future, so drains are idempotent and may run concurrently.
 */
abstract class WeightedEntries extends SlotQueue implements Bulkhead {

    WeightedEntries(String name, int maxConcurrency, int maxQueue, boolean lifo, int[] headroom) {
        super(name, maxConcurrency, maxQueue, lifo, headroom);
    }

    /**
     * The facts of a queue-full refusal at the current limits, with zero counts, kept for the one-allocation refusal
     * ({@link InProcessBulkhead#rejectQueueFull}); replaced when a limit changed. Racy by design: two threads may
     * both replace it with equal values.
     */
    private volatile Rejection queueFullTemplate;

    Rejection queueFullTemplate() {
        Rejection template = queueFullTemplate;
        int limit = maxConcurrency;
        int queueLimit = maxQueue;
        if (template == null || template.maxConcurrency() != limit || template.maxQueue() != queueLimit) {
            template = new Rejection(name, Rejection.Reason.QUEUE_FULL, limit, queueLimit, 0, 0, Duration.ZERO);
            queueFullTemplate = template;
        }
        return template;
    }

    /**
     * Refuses a call that found the queue full in {@code observedState} when nobody needs the {@link Rejection} now
     * (no listener, no overflow handler): the exception is the refusal's only allocation. It keeps the counts and
     * the cached facts of the limits, and builds its {@code Rejection} when asked (see
     * {@link BulkheadRejectedException}).
     */
    final BulkheadRejectedException quietQueueFull(long observedState) {
        Rejection template = queueFullTemplate();
        int executing = Math.max(0, template.maxConcurrency() - available(observedState));
        int queued = waiting(observedState);
        FlightRecorderEvents.rejected(template, executing, queued);
        return RejectionAccess.withCounts(template, executing, queued);
    }

    /** The limit, read consistently with a change in progress; see {@link #executingCount()}. */
    @Override
    public final int maxConcurrency() {
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

    /** Calls holding a slot: the limit minus the available slots, read through the sequence lock. */
    @Override
    public final int executingCount() {
        for (;;) {
            int version = limitChanges;
            int limit = maxConcurrency;
            long current = stateWord();
            if ((version & 1) == 0 && version == limitChanges) {
                return Math.max(0, limit - available(current));
            }
            // A limit change is in progress under the lock; wait for it rather than spin.
            lock.lock();
            lock.unlock();
        }
    }

    /** A queue-full refusal of a {@code NORMAL} call with the counts of {@code observedState}. */
    Rejection queueFull(long observedState) {
        return refusal(Rejection.Reason.QUEUE_FULL, observedState, 0L, WaiterQueue.NORMAL);
    }

    /** A refusal of a call of priority ordinal {@code level} with the counts of {@code observedState}. */
    @Override
    final Rejection refusal(Rejection.Reason reason, long observedState, long waitedNanos, int level) {
        int limit = maxConcurrency;
        return new Rejection(name, reason, limit, maxQueue, Math.max(0, limit - available(observedState)),
                waiting(observedState), waitedNanos == 0L ? Duration.ZERO : BulkheadEvents.duration(waitedNanos),
                WaiterQueue.priority(level));
    }

    /** The refusal of a waiter that ended without a slot (timed out, evicted, refused), with the current counts. */
    Rejection waiterRefusal(Rejection.Reason reason, long waitedNanos, int level) {
        return refusal(reason, stateWord(), waitedNanos, level);
    }

    /** A queued waiter got its slot and will run. */
    final void waiterAdmitted(Waiter waiter, long waitedNanos) {
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.ADMITTED);
        reportAdmitted(waitedNanos, waiter.priorityLevel(), waiter.callerContexts);
    }

    /** A queued waiter left without running because its caller gave up. */
    final void waiterCancelled(Waiter waiter, long waitedNanos) {
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.CANCELLED);
        if (waiter.reported()) {
            reportCancelled(waitedNanos, waiter.priorityLevel(), waiter.callerContexts);
        }
    }

    /**
     * A queued waiter was pushed out without a slot: evicted by a newer one, or refused (closed, or the limit
     * dropped below its weight). Reports, runs the handler, and makes the exception.
     */
    final BulkheadRejectedException waiterEvicted(Waiter waiter, long waitedNanos) {
        Rejection.Reason reason = waiter.status() == Waiter.REFUSED ? waiter.refusal : Rejection.Reason.EVICTED;
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.pushedOut(reason));
        return rejectFor(waiter, waiterRefusal(reason, waitedNanos, waiter.priority));
    }

    /** A queued waiter reached the maximum wait: reports, runs the handler, and makes the exception. */
    final BulkheadRejectedException waiterTimedOut(Waiter waiter, long waitedNanos) {
        FlightRecorderEvents.endWait(waiter.recording, FlightRecorderEvents.TIMED_OUT);
        return rejectFor(waiter, waiterRefusal(Rejection.Reason.WAIT_TIMEOUT, waitedNanos, waiter.priority));
    }

    /** The refusal of a waiter: reported with its handler, or only made for a waiter not {@link Waiter#reported}. */
    final BulkheadRejectedException rejectFor(Waiter waiter, Rejection rejection) {
        return waiter.reported() ? reject(rejection, waiter.callerContexts) : new BulkheadRejectedException(rejection);
    }

    // Provided by InProcessBulkhead, the only subclass.
    abstract BulkheadRejectedException reject(Rejection rejection);

    abstract BulkheadRejectedException reject(Rejection rejection, BulkheadEvents.CallerContexts contexts);

    abstract void reportAdmitted(long waitedNanos, Priority priority);

    abstract void reportAdmitted(long waitedNanos, Priority priority, BulkheadEvents.CallerContexts contexts);

    abstract void reportCancelled(long waitedNanos, Priority priority, BulkheadEvents.CallerContexts contexts);

    /** Reports the admission of a call made without options (so of {@link Priority#NORMAL}). */
    final void reportAdmitted(long waitedNanos) {
        reportAdmitted(waitedNanos, Priority.NORMAL);
    }

    abstract boolean observed();

    abstract <T, X extends Throwable> T runObserved(ThrowingSupplier<? extends T, X> operation, int weight) throws X;

    abstract Permit newPermit(int weight);

    abstract <T> void startAsync(Supplier<? extends CompletionStage<T>> operation, CompletableFuture<T> result,
                                 int weight);

    abstract void waitAsync(AsyncWaiter waiter, CompletableFuture<?> callerFuture);

    abstract long waitStart();

    private InProcessBulkhead self() {
        return (InProcessBulkhead) this;
    }

    private static boolean isPlain(CallOptions options) {
        return options.weight() == 1 && options.priority() == Priority.NORMAL;
    }

    /** The weight, checked against the current limit: a heavier call could never run. */
    private int weightWithinLimit(CallOptions options) {
        int weight = options.weight();
        checkWeight(weight, options.priority().ordinal());
        return weight;
    }

    /**
     * Checks {@code weight} against the limit read while no limit change is under way, and returns the sequence
     * lock's (even) {@link #limitChanges} it was read at. Why: a change writes the limit field and then the state
     * word, so a weight refused by the new field while the word still holds the old limit's free slots would let
     * the same thread's next, lighter call be admitted at the old limit: refused after the change, admitted before
     * it, which no order of the two explains (Lincheck's model check of the weighted bulkhead found it). Spins
     * only while a change, a few instructions under the lock, is half done. An admission needs no such care: the
     * word's free slots never exceed the limit they were counted under, so whatever the CAS takes is legal there.
     */
    private int checkWeight(int weight, int level) {
        for (;;) {
            int version = limitChanges;
            int limit = maxConcurrency;
            if ((version & 1) == 0 && version == limitChanges) {
                if (weight > limit - headroom[level]) { // the reserves above it must stay free: it could never run
                    throw tooHeavy(weight, limit, level);
                }
                return version;
            }
            Thread.onSpinWait();
        }
    }

    private IllegalArgumentException tooHeavy(int weight, int limit, int level) {
        int reserved = headroom[level];
        if (reserved == 0) {
            return new IllegalArgumentException("weight (" + weight + ") exceeds the maxConcurrency (" + limit
                    + ") of bulkhead '" + name + "': such a call could never get its slots");
        }
        return new IllegalArgumentException("weight (" + weight + ") exceeds the " + Math.max(0, limit - reserved)
                + " slots a " + WaiterQueue.priority(level) + " call may take in bulkhead '" + name
                + "' (maxConcurrency " + limit + " less " + reserved + " reserved for higher priorities): such a "
                + "call could never get its slots");
    }

    /**
     * The failure of a call that {@link #enqueue} refused on arrival. A weight above the limit there means the
     * limit was lowered between the call's own check and its joining: it fails as too heavy, exactly as if the
     * limit had been lowered first (linearizable at the change), rather than as a waiter refused by the change.
     */
    RuntimeException refusedOnArrival(Rejection rejection, Waiter waiter) {
        return waiter.reported() || rejection.reason() == Rejection.Reason.WEIGHT_EXCEEDS_LIMIT
                ? refusedOnArrival(rejection, waiter.weight) : new BulkheadRejectedException(rejection);
    }

    /** {@link #refusedOnArrival(Rejection, Waiter)} of a reported waiter of {@code weight} slots. */
    RuntimeException refusedOnArrival(Rejection rejection, int weight) {
        return rejection.reason() == Rejection.Reason.WEIGHT_EXCEEDS_LIMIT
                ? tooHeavy(weight, rejection.maxConcurrency(), rejection.priority().ordinal()) : reject(rejection);
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
                releaseSlots(weight);
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
        long outcome = admitOrObserveFull(weight, level);
        if (outcome == ADMITTED) {
            reportAdmitted(0, options.priority());
        } else if (outcome != MUST_WAIT) {
            throw reject(refusal(Rejection.Reason.QUEUE_FULL, outcome, 0L, level));
        } else {
            SyncWaiter.await(self(), signal, weight, options.priority());
        }
        return weight;
    }

    /**
     * Linearizable against limit changes: the weight is checked and the slots are tried at one limit. A try that
     * fails while the limit changed (the sequence lock {@link #limitChanges} moved) decides again at the new limit,
     * so a weight that a lowered limit can no longer hold fails as too heavy (at the change) instead of coming back
     * empty for a limit that was high enough (found by Lincheck's stress run of
     * {@code WeightedBulkheadLinearizabilityTest}: {@code changeMaxConcurrency(1)} racing {@code tryAcquire} of 2).
     */
    @Override
    public Optional<Permit> tryAcquireWith(CallOptions options) {
        Objects.requireNonNull(options, "options");
        int weight = options.weight();
        int level = options.priority().ordinal();
        for (;;) {
            int version = checkWeight(weight, level);
            if (options.signal().isCancelled()) {
                return Optional.empty();
            }
            if (admitOrObserveFull(weight, level) == ADMITTED) {
                reportAdmitted(0, options.priority());
                return Optional.of(newPermit(weight));
            }
            if (version == limitChanges) {
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
        if (outcome == ADMITTED) {
            startAsync(operation, result, options.weight());
        } else if (outcome == MUST_WAIT) {
            AsyncCallWaiter<T> waiter = new AsyncCallWaiter<>(self(), options.signal(), waitStart(), operation,
                    result);
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
        if (outcome == ADMITTED) {
            future.complete(newPermit(options.weight()));
        } else if (outcome == MUST_WAIT) {
            AsyncPermitWaiter waiter = new AsyncPermitWaiter(self(), options.signal(), waitStart(), future);
            waiter.options(options.weight(), options.priority());
            waitAsync(waiter, future);
        }
        return future;
    }

    /**
     * The lock-free start of an asynchronous weighted call: {@link #ADMITTED} (reported), {@link #MUST_WAIT}, or
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
        long outcome = admitOrObserveFull(weight, level);
        if (outcome == ADMITTED) {
            reportAdmitted(0, options.priority());
        } else if (outcome != MUST_WAIT) {
            future.completeExceptionally(reject(refusal(Rejection.Reason.QUEUE_FULL, outcome, 0L, level)));
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
        int refused = closeQueue();
        CompletableFuture<Void> idle = drained();
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
        closeQueue();
    }

    @Override
    public boolean isClosed() {
        return closed();
    }
}
