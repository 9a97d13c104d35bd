package dev.bulwark.internal.partition;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.internal.bulkhead.PumpAcquire;
import dev.bulwark.internal.SpinThenParkLock;
import dev.bulwark.internal.util.Arguments;
import dev.bulwark.internal.spi.Outcomes;
import dev.bulwark.internal.spi.WaiterFate;
import dev.bulwark.internal.util.Stages;
import dev.bulwark.internal.util.VarHandles;
import dev.bulwark.internal.timer.OffTimer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * Weighted fair shares of a global bulkhead's slots across the keys of a partitioned bulkhead.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>Terms.</b> {@code held(k)} is the number of global slots the calls of key {@code k} hold through this object
 * ({@link Partition#held()}); {@code weight(k) >= 1} is the key's share weight, fixed when its partition is made.
 * A key is <em>active</em> while one of its calls holds a global slot or waits here for one. Its <em>share</em> is
 * {@code L * weight(k) / (sum of the active keys' weights)}, {@code L} the global limit. A key <em>borrows</em>
 * when it holds more than its share, which it may do only while no other key waits: idle share is lent out
 * (work-conserving), never reserved.
 *
 * <p><b>Admission.</b> Fast path: when no call waits here ({@link #waiting} is 0), a call takes a free global slot
 * with the global bulkhead's own {@code tryAcquire()}. Every slot is a permit of the global bulkhead, whose own
 * atomic step decides and counts it, so the global limit is never exceeded whatever races here: this object only
 * chooses <em>who</em> gets a slot. Otherwise the call waits here, at the back of its key's FIFO queue. While any
 * call waits, a <em>pump</em> (an {@code acquireAsync()} this object makes on the global bulkhead, owned by no call,
 * whose refusals and cancellation an in-process global bulkhead reports to nobody: {@link PumpAcquire}) is
 * outstanding; the slot it yields goes to the head waiter of the waiting key with the smallest {@code held/weight}
 * (the key furthest below its share; ties go to the head that came first), and the pump starts again while calls
 * wait. A slot that finds nobody waiting any more is given back at once (closed {@code IGNORED}).
 *
 * <p><b>Invariant</b> (every change under {@link #lock}, which guards only this object's own fields and never
 * runs user code or calls the global bulkhead): {@code waiting} = the sum of the keys' queue lengths, and
 * {@link #waitingKeys} holds exactly the keys with a non-empty queue; a waiter is in its key's queue exactly while
 * its fate ({@link dev.bulwark.internal.spi.WaiterFate}) is open, every decision being made with its removal;
 * {@code waiting > 0} implies
 * {@code pumps > 0}, so a slot freed anywhere reaches the waiters (no lost wake-up: a waiter that queues after its
 * {@code tryAcquire()} failed starts a pump if none runs, and a pump ends only under the lock after seeing
 * {@code waiting == 0}); each grant goes to a waiting key minimizing {@code held/weight} at that moment. Hence a
 * key at or above its share is never granted a slot while a key below its share waits (with {@code L/W} common to
 * all active keys, {@code held(b)/weight(b) < L/W <= held(a)/weight(a)}), and a noisy key that borrowed every
 * slot gives them back to the waiting keys as its calls finish: no running call is ever stopped.
 *
 * <p><b>Timer thread.</b> A waiter's maximum wait is decided on the timer's thread ({@link FairWaiter}); the cancel
 * of a pump it leaves unneeded, and the outcome of a pump completed there (a grant, a restart), are handed off
 * ({@link OffTimer}): neither the global bulkhead nor a granted operation ever runs on the timer thread.
 *
 * <p>A call can pass a waiter on the fast path only in the instant between that waiter's failed
 * {@code tryAcquire()} and its queuing, when a slot was freed: the pump, then queued behind it in the global
 * bulkhead, would have had that slot a moment later anyway.
 *
 * <p><b>Queue rules.</b> Waiting here follows the global bulkhead's queue limit and maximum wait, read when the call
 * arrives ({@link Bulkhead#maxQueue()}: at most that many calls wait here; {@link Bulkhead#maxWait()}); the order
 * is by share, FIFO within a key. A pump refused by the global bulkhead for any reason other than its own maximum
 * wait (queue full of other users' calls, store unavailable, closed) refuses every waiting call with that reason.
 */
public final class FairShares {

    private static final VarHandle WAITING = VarHandles.field(MethodHandles.lookup(), "waiting", int.class);

    private final LongFunction<BulkheadRejectedException> closedRefusal;
    private final Bulkhead global;
    private final Scheduler scheduler;
    private final Ticker ticker;
    private final @Nullable Consumer<? super Rejection> rejectionHandler;

    private final SpinThenParkLock lock = new SpinThenParkLock();
    /** Calls waiting here; written under the lock, read without it by the fast path. */
    private volatile int waiting;
    /** The keys with at least one waiting call; under the lock. */
    private final ArrayList<Partition> waitingKeys = new ArrayList<>();
    /** Pumps started and not yet finished; under the lock. */
    private int pumps;
    /** The pumps' futures while they wait in the global bulkhead, to cancel when nobody waits; under the lock. */
    private final ArrayList<CompletableFuture<Permit>> pendingPumps = new ArrayList<>(2);
    private long nextSequence;
    private boolean closed;

    /**
     * Creates the fair shares of a global bulkhead.
     *
     * @param closedRefusal makes (and reports) the refusal of a call by the closed partitioned bulkhead, from
     *     how long the call waited, in nanoseconds
     * @param global the global bulkhead
     * @param scheduler times out waits at the global bulkhead's maximum wait
     * @param ticker measures waits
     * @param rejectionHandler told of the refusals made here, or {@code null}
     */
    public FairShares(LongFunction<BulkheadRejectedException> closedRefusal, Bulkhead global, Scheduler scheduler,
                      Ticker ticker, @Nullable Consumer<? super Rejection> rejectionHandler) {
        this.closedRefusal = closedRefusal;
        this.global = global;
        this.scheduler = scheduler;
        this.ticker = ticker;
        this.rejectionHandler = rejectionHandler;
    }

    /**
     * Takes a global slot for a call of the partition's key, blocking while it waits.
     *
     * @param partition the call's partition
     * @param signal lets the caller give up while waiting
     * @return the slot; closing it gives it back, once
     * @throws BulkheadRejectedException when the wait is refused (queue full, maximum wait, closed)
     * @throws CancellationException when cancelled or interrupted while waiting
     */
    public Permit acquire(Partition partition, CancellationSignal signal) {
        Permit fast = tryFast(partition);
        return fast != null ? fast : enqueue(partition, signal).await();
    }

    /**
     * Takes a global slot for a call of the partition's key without blocking a thread.
     *
     * @param partition the call's partition
     * @param signal lets the caller give up while waiting
     * @return a future of the slot; cancelling it leaves the queue
     */
    public CompletableFuture<Permit> acquireAsync(Partition partition, CancellationSignal signal) {
        try {
            Permit fast = tryFast(partition);
            return fast != null ? CompletableFuture.completedFuture(fast) : enqueue(partition, signal).future;
        } catch (RuntimeException refused) {
            return CompletableFuture.failedFuture(refused);
        }
    }

    /**
     * Returns the number of calls waiting here now.
     *
     * @return the count
     */
    public int waitingCount() {
        return waiting;
    }

    /**
     * Stops admitting and refuses every waiting call with {@link Rejection.Reason#CLOSED}. Idempotent.
     *
     * @return how many waiting calls learnt this refusal (as a plain bulkhead's close counts them: not a caller that
     *     completed its future itself at the same instant; a cancel after the close decided is refused, see
     *     {@link FairWaiter#cancelledByCaller})
     */
    public int close() {
        List<FairWaiter> refused;
        List<CompletableFuture<Permit>> cancelled;
        lock.lock();
        try {
            closed = true;
            refused = takeAllWaiters();
            cancelled = takePendingPumps();
        } finally {
            lock.unlock();
        }
        cancelAll(cancelled);
        int told = 0;
        for (FairWaiter waiter : refused) {
            if (waiter.fail(closedRefusal.apply(Math.max(0L, ticker.read() - waiter.enqueuedAt)))) {
                told++;
            }
        }
        return told;
    }

    String globalName() {
        return global.name();
    }

    private @Nullable Permit tryFast(Partition partition) {
        if (waiting != 0 || closed) {
            return null;
        }
        Optional<Permit> permit = global.tryAcquire();
        if (permit.isEmpty()) {
            return null;
        }
        partition.addHeld(1);
        return new FairPermit(partition, permit.get());
    }

    /** Queues a call (or refuses it at once); arms its early ends; starts a pump if none runs. */
    private FairWaiter enqueue(Partition partition, CancellationSignal signal) {
        if (signal.isCancelled()) {
            throw Outcomes.cancelledBeforeStart(global.name(), signal);
        }
        int maxQueue = global.maxQueue(); // the global bulkhead's own reads, outside the lock
        long maxWaitNanos = Arguments.boundedNanos(global.maxWait().orElse(null));
        FairWaiter waiter = new FairWaiter(this, partition, signal, ticker.read());
        boolean refusedClosed = false;
        boolean refusedFull = false;
        boolean startPump = false;
        lock.lock();
        try {
            if (closed) {
                refusedClosed = true;
            } else if (waiting >= maxQueue) {
                refusedFull = true;
            } else {
                ArrayDeque<FairWaiter> queue = partition.fairQueue();
                if (queue.isEmpty()) {
                    waitingKeys.add(partition);
                }
                queue.addLast(waiter);
                waiter.sequence = nextSequence++;
                WAITING.setVolatile(this, waiting + 1);
                if (pumps == 0) {
                    pumps = 1;
                    startPump = true;
                }
            }
        } finally {
            lock.unlock();
        }
        if (refusedClosed) {
            throw closedRefusal.apply(0L);
        }
        if (refusedFull) {
            throw refusal(Rejection.Reason.QUEUE_FULL, 0L);
        }
        waiter.arm(scheduler, maxWaitNanos);
        if (startPump) {
            runPump();
        }
        return waiter;
    }

    /**
     * Decides a waiter's fate, if it is still open, and takes it out of its key's queue in the same step (under the
     * lock, so that a waiter is queued exactly while its fate is open).
     *
     * @param waiter the waiter
     * @param outcome the fate: {@link WaiterFate#CANCELLED} or {@link WaiterFate#TIMED_OUT}
     * @return {@code true} when this call decided the fate (and removed the waiter)
     */
    boolean remove(FairWaiter waiter, int outcome) {
        List<CompletableFuture<Permit>> cancelled = null;
        lock.lock();
        try {
            if (!waiter.decideIf(WaiterFate.WAITING, outcome)) {
                return false;
            }
            ArrayDeque<FairWaiter> queue = waiter.partition.fairQueue();
            queue.remove(waiter);
            if (queue.isEmpty()) {
                waitingKeys.remove(waiter.partition);
            }
            WAITING.setVolatile(this, waiting - 1);
            if (waiting == 0) {
                cancelled = takePendingPumps();
            }
        } finally {
            lock.unlock();
        }
        if (cancelled != null) {
            List<CompletableFuture<Permit>> pumps = cancelled; // a foreign bulkhead's cancel, and what it completes
            OffTimer.run(() -> cancelAll(pumps));
        }
        return true;
    }

    /** The refusal of a waiter whose maximum wait passed. */
    BulkheadRejectedException timedOut(FairWaiter waiter) {
        return refusal(Rejection.Reason.WAIT_TIMEOUT, ticker.read() - waiter.enqueuedAt);
    }

    private BulkheadRejectedException refusal(Rejection.Reason reason, long waitedNanos) {
        return Outcomes.reject(new Rejection(global.name(), reason, global.maxConcurrency(), global.maxQueue(),
                global.executingCount(), waiting, Duration.ofNanos(Math.max(0L, waitedNanos))), null,
                rejectionHandler);
    }

    /**
     * Runs pumps until one is left waiting in the global bulkhead or none is needed. A pump that completes at once
     * is handled in this loop rather than by a nested callback, so a long queue of operations that complete at
     * once does not grow the stack.
     */
    private void runPump() {
        for (;;) {
            CompletableFuture<Permit> step;
            try {
                step = PumpAcquire.acquire(global); // refusals and cancels of the pump are no caller's
            } catch (RuntimeException | Error failedToWait) {
                step = CompletableFuture.failedFuture(failedToWait);
            }
            if (!step.isDone()) {
                boolean nobodyWaits;
                lock.lock();
                try {
                    nobodyWaits = waiting == 0;
                    if (!nobodyWaits) {
                        pendingPumps.add(step);
                    }
                } finally {
                    lock.unlock();
                }
                if (nobodyWaits) {
                    step.cancel(false);
                }
                CompletableFuture<Permit> pending = step;
                // Completed on the thread that ends the wait: on the timer's (a timeout, or a cancel by a timed-out
                // waiter) the grant it may deliver and the restart (global.acquireAsync()) are handed off.
                pending.whenComplete((permit, failure) -> OffTimer.run(() -> {
                    if (pumped(pending, permit, failure)) {
                        runPump();
                    }
                }));
                return;
            }
            Permit permit = null;
            Throwable failure = null;
            try {
                permit = step.join();
            } catch (CompletionException | CancellationException e) {
                failure = Stages.unwrap(e);
            }
            if (!pumped(step, permit, failure)) {
                return;
            }
        }
    }

    /**
     * Hands a pump's outcome to the waiters.
     *
     * @return {@code true} when this pump must run again (calls still wait and no other pump runs)
     */
    private boolean pumped(CompletableFuture<Permit> step, @Nullable Permit permit, @Nullable Throwable failure) {
        FairWaiter granted = null;
        List<FairWaiter> refused = null;
        List<CompletableFuture<Permit>> cancelled = null;
        boolean again;
        lock.lock();
        try {
            pendingPumps.remove(step);
            if (permit != null) {
                granted = closed ? null : pollBest();
                if (granted != null) {
                    granted.partition.addHeld(1); // before the lock is released: the next choice sees it
                }
            } else if (!retryable(failure)) {
                refused = takeAllWaiters();
            }
            again = waiting > 0 && pumps == 1;
            if (!again) {
                pumps--;
            }
            if (waiting == 0) {
                cancelled = takePendingPumps();
            }
        } finally {
            lock.unlock();
        }
        if (cancelled != null) {
            cancelAll(cancelled);
        }
        if (permit != null) {
            if (granted == null) {
                permit.close(Permit.Outcome.IGNORED); // nobody waits any more: give the slot back
            } else {
                granted.grant(new FairPermit(granted.partition, permit));
            }
        }
        if (refused != null) {
            for (FairWaiter waiter : refused) {
                waiter.fail(refusalLike(failure));
            }
        }
        return again;
    }

    /** A pump that timed out in the global queue, or that this object cancelled, simply starts again if needed. */
    private static boolean retryable(@Nullable Throwable failure) {
        if (failure instanceof CancellationException) {
            return true;
        }
        return failure instanceof BulkheadRejectedException
                && ((BulkheadRejectedException) failure).rejection().reason() == Rejection.Reason.WAIT_TIMEOUT;
    }

    /** Each refused waiter gets its own exception; a foreign failure is passed on as it is. */
    private Throwable refusalLike(@Nullable Throwable failure) {
        if (failure instanceof BulkheadRejectedException) {
            Rejection rejection = ((BulkheadRejectedException) failure).rejection();
            return Outcomes.reject(rejection, failure.getCause(), rejectionHandler);
        }
        return failure == null ? new IllegalStateException("the global bulkhead failed") : failure;
    }

    /** Takes the head of the key furthest below its share; under the lock, with {@code waiting > 0}. */
    private @Nullable FairWaiter pollBest() {
        Partition best = null;
        FairWaiter bestHead = null;
        for (Partition key : waitingKeys) {
            FairWaiter head = key.fairQueue().peekFirst();
            if (head == null) {
                continue;
            }
            if (best == null) {
                best = key;
                bestHead = head;
                continue;
            }
            // held(key)/weight(key) < held(best)/weight(best), without division; ties by arrival.
            long mine = (long) key.held() * best.shareWeight();
            long theirs = (long) best.held() * key.shareWeight();
            if (mine < theirs || (mine == theirs && head.sequence < bestHead.sequence)) {
                best = key;
                bestHead = head;
            }
        }
        if (best == null) {
            return null;
        }
        ArrayDeque<FairWaiter> queue = best.fairQueue();
        queue.pollFirst();
        // Open while queued, so the CAS wins; a caller's cancel from here finds the grant (cancelledByCaller).
        bestHead.decideIf(WaiterFate.WAITING, WaiterFate.GRANTED);
        if (queue.isEmpty()) {
            waitingKeys.remove(best);
        }
        WAITING.setVolatile(this, waiting - 1);
        return bestHead;
    }

    /** Empties every queue; under the lock. */
    private List<FairWaiter> takeAllWaiters() {
        List<FairWaiter> all = new ArrayList<>(waiting);
        for (Partition key : waitingKeys) {
            ArrayDeque<FairWaiter> queue = key.fairQueue();
            for (FairWaiter waiter : queue) {
                waiter.decideIf(WaiterFate.WAITING, WaiterFate.REFUSED); // open while queued: always wins
                all.add(waiter);
            }
            queue.clear();
        }
        waitingKeys.clear();
        WAITING.setVolatile(this, 0);
        return all;
    }

    /** Takes the pumps waiting in the global bulkhead, to cancel outside the lock; under the lock. */
    private List<CompletableFuture<Permit>> takePendingPumps() {
        if (pendingPumps.isEmpty()) {
            return List.of();
        }
        List<CompletableFuture<Permit>> taken = new ArrayList<>(pendingPumps);
        pendingPumps.clear();
        return taken;
    }

    private static void cancelAll(List<CompletableFuture<Permit>> pending) {
        for (CompletableFuture<Permit> pump : pending) {
            pump.cancel(false); // its completion (cancelled, or a slot it got meanwhile) is handled by pumped()
        }
    }


    @Override
    public String toString() {
        return "FairShares[" + global.name() + ", waiting " + waiting + "]";
    }
}
