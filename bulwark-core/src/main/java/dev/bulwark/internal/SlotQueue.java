package dev.bulwark.internal;

import dev.bulwark.Rejection;
import dev.bulwark.internal.spi.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The slots and the waiter queue of an {@link InProcessBulkhead}: who may run, who waits, and who is granted next.
 * Everything here is about the count of slots and the order of waiters; timing, listeners and the calls'
 * entry points live in {@link InProcessBulkhead}, which extends this class so that the hot paths touch one object.
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
 * <p><b>Limit changes</b> happen under the lock and add the difference to {@code available}; raising it grants
 * waiters at once. {@link #limitChanges} is a sequence lock that lets {@link #executingCount()} read the limit
 * and the word as a consistent pair without the lock. An adaptive limit ({@link AdaptiveLimiter}) changes it the
 * same way, through {@link InProcessBulkhead#adaptLimit(int, int)}, which applies a decision only if the limit
 * still has the value the decision was based on.
 *
 * <p><b>Queue order.</b> FIFO grants from the head of the queue. LIFO grants from the tail, and a newcomer that
 * finds the queue exactly at its limit unlinks the head (the oldest waiter) under the lock, marks it EVICTED with
 * the same compare-and-set that decides every waiter's fate, and takes its place; so LIFO refusals are decided
 * under the lock (the lock-free refusal of the fast path applies only to FIFO). The evicted waiter is told after
 * the lock is released.
 */
abstract class SlotQueue {

    private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", long.class);

    /** {@link #admitOrObserveFull()}: the caller took a slot. */
    static final long ADMITTED = -1L;
    /** {@link #admitOrObserveFull()}: no slot is free but the queue has room. */
    static final long MUST_WAIT = -2L;

    final String name;
    /** Serve the newest waiter first and let a newcomer evict the oldest when the queue is full. */
    private final boolean lifo;

    /** {@code waiting} in the high 32 bits, signed {@code available} in the low 32 bits. */
    private volatile long state;
    volatile int maxConcurrency;
    volatile int maxQueue;
    /** Sequence lock for limit changes: odd while a change is in progress. Written under {@link #lock}. */
    private volatile int limitChanges;

    final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private Waiter head;
    private Waiter tail;

    SlotQueue(String name, int maxConcurrency, int maxQueue, boolean lifo) {
        this.name = name;
        this.maxConcurrency = maxConcurrency;
        this.maxQueue = maxQueue;
        this.state = pack(0, maxConcurrency);
        this.lifo = lifo;
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
    long admitOrObserveFull() {
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
    Rejection enqueue(Waiter waiter) {
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
    // Snapshots for refusals

    Rejection queueFull(long observedState) {
        int limit = maxConcurrency;
        return new Rejection(name, Rejection.Reason.QUEUE_FULL, limit, maxQueue,
                Math.max(0, limit - available(observedState)), waiting(observedState), Duration.ZERO);
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

    /** The executing count of a queue-full refusal seen in {@code observedState}, as {@link #queueFull} has it. */
    static int executingIn(Rejection template, long observedState) {
        return Math.max(0, template.maxConcurrency() - available(observedState));
    }

    /** The waiting count of a refusal seen in {@code observedState}. */
    static int waitingIn(long observedState) {
        return waiting(observedState);
    }

    Rejection waitTimeout(long waitedNanos) {
        int limit = maxConcurrency;
        long current = state;
        return new Rejection(name, Rejection.Reason.WAIT_TIMEOUT, limit, maxQueue,
                Math.max(0, limit - available(current)), waiting(current), BulkheadEvents.duration(waitedNanos));
    }

    /** The refusal of a waiter that a newer one evicted (LIFO). */
    Rejection evicted(long waitedNanos) {
        int limit = maxConcurrency;
        long current = state;
        return new Rejection(name, Rejection.Reason.EVICTED, limit, maxQueue,
                Math.max(0, limit - available(current)), waiting(current), BulkheadEvents.duration(waitedNanos));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Limits and counts

    /** The limit, read consistently with a change in progress; see {@link #executingCount()}. */
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


    /** The queue limit. */
    public int maxQueue() {
        return maxQueue;
    }


    /** Calls holding a slot: the limit minus the available slots, read through the sequence lock. */
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


    /** Calls waiting in the queue. */
    public int queuedCount() {
        return waiting(state);
    }


    /** Changes the limit (if {@code expected} is -1 or matches) and grants waiters a raise makes room for. */
    boolean changeLimit(int expected, int newMaxConcurrency) {
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
}
