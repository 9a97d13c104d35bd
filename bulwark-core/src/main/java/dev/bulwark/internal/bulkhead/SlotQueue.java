package dev.bulwark.internal.bulkhead;

import dev.bulwark.BulkheadConfig;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.SpinThenParkLock;
import dev.bulwark.internal.util.Arguments;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The slots and the waiter queue of an in-process bulkhead: who may run, who waits, and who is granted next;
 * the limits that decide it (concurrency, queue, maximum wait) and the facts of a refusal at those limits. Everything
 * here is about the count of slots and the order of waiters; timing, listeners and the calls' entry points live in
 * the bulkhead, which owns one of these as a final field rather than extending it: the price is one more load of
 * that field on the hot paths, for a class that is one concept instead of a file include.
 *
 * <h2>Design notes</h2>
 *
 * <p><b>State word.</b> The number of waiting calls, the number of available slots and whether the bulkhead is
 * closed live in one 64-bit word, {@link #state}: bit 63 is {@link #CLOSED}, bits 32..62 hold {@code waiting},
 * the low 32 bits hold {@code available} as a signed int ({@code maxConcurrency - executing}; negative after the
 * limit was lowered below the running calls). Because all of it changes in one compare-and-set, a newcomer can
 * neither exceed the limit (no check-then-act), nor slip past a waiter (no barging), nor get in after a close.
 *
 * <p><b>Fast paths</b> need the whole high half to be zero (open, nobody waiting). Admission of weight {@code n}
 * at a priority whose reserved headroom is {@code r}: if {@code available - n >= r}, CAS {@code available - n}.
 * Release: CAS {@code available + n}. No lock, no allocation; for weight 1 at {@code NORMAL} with no reserve this
 * is exactly the single-slot algorithm. A refusal when the queue is full is decided from one read of the word
 * (and of {@link #queuedLevels}: it stays lock-free only while no waiter of a lower priority could be evicted).
 *
 * <p><b>Slow paths</b> take {@link #lock}, which guards the {@link WaiterQueue}. While the high half is not zero
 * nobody outside the lock can change the word, so every change to it is serialized by the lock; while it is zero,
 * lock holders change it by CAS, racing only the fast paths. Joining re-checks the word under the lock: a newcomer
 * that would be served first and has its slots takes them at once; otherwise it CASes {@code waiting + 1} before
 * linking. A release that finds the high half set adds its slots to {@code available} under the lock and then
 * grants ({@link #grantReady()}) while the next waiter (the oldest of the highest priority) fits.
 *
 * <p><b>Invariants</b> (hold whenever {@link #lock} is free):
 * <ol>
 *   <li>{@code waiting} equals the number of linked nodes; it changes only under the lock.</li>
 *   <li>Nobody could be served: the next waiter needs more than {@code available} minus its priority's reserve.
 *       With weight 1 and no reserve this is the classic {@code waiting > 0} implies {@code available <= 0}.
 *       Strict order follows: the head needing 3 slots blocks later 1-slot callers and all lower priorities.</li>
 *   <li>Every slot taken is released exactly once, by the weight it was taken with: by the operation's
 *       {@code finally}, its stage's completion, a {@link LocalPermit}'s one-shot CAS, or, when a grant races a
 *       cancellation, by the waiter that won the slots but no longer wants them.</li>
 *   <li>Once {@link #CLOSED} is set it stays set and the queue stays empty: {@link #closeQueue()} refuses every
 *       waiter under the lock and {@link #enqueue} refuses newcomers; releases still count, by the lock path.</li>
 * </ol>
 *
 * <p><b>Limit changes</b> happen under the lock and add the difference to {@code available}; raising it grants
 * waiters at once, lowering it below a waiter's weight plus its priority's headroom refuses that waiter
 * ({@code WEIGHT_EXCEEDS_LIMIT}): it could never be granted, and strict order would strand everyone behind it.
 * {@link #limitChanges} is a sequence lock that lets {@link #executingCount()} read the limit and the word as a
 * consistent pair without the lock. An adaptive limit changes it through the bulkhead's {@code adaptLimit}.
 *
 * <p><b>Queue order.</b> Highest priority first; within one, FIFO grants the oldest, LIFO the newest. A newcomer
 * that finds the queue exactly at its limit evicts the newest waiter of the lowest priority below its own, or
 * (LIFO) the oldest of its own priority, marking it EVICTED with the same CAS that decides every waiter's fate;
 * waiters decided under the lock are chained through {@link Waiter#decidedNext} and told after it is released.
 *
 * <p><b>Abandoned waiters.</b> A cancellation or timeout wins its waiter's CAS without the lock and unlinks the node
 * afterwards ({@link #removeAbandoned}); until then the node is still counted. It takes effect at the unlink, by
 * whoever does it, and whoever does it must then grant what the removal makes room for, as a sequential bulkhead
 * would at the cancel. A close or a limit change sweeps such nodes too, so it first grants ({@link #grantReady()})
 * at the limit as it was: else a close could refuse, or a lowered limit find too heavy, the waiter that the
 * cancellation of the one ahead of it had already entitled to the slots (Lincheck's stress run found the close).
 * A close then decides the next waiter's refusal by its own CAS before sweeping the rest, granting again while that
 * CAS finds the next one abandoned since; a departure decided after it is behind a waiter that was still waiting
 * and made room for nobody. A limit change has no such CAS: a departure decided between its first grant and its
 * sweep is handled as if it came after the change (waiters behind it that the new limit cannot hold are refused),
 * except that its own caller sees its cancellation or timeout even when the new limit is below its weight.
 */
final class SlotQueue {

    private static final VarHandle STATE = VarHandles.field(MethodHandles.lookup(), "state", long.class);

    /** {@link #admitOrObserveFull()}: the caller took its slots. */
    static final long ADMITTED = -1L;
    /** {@link #admitOrObserveFull()}: no slot is free but the caller may queue (or must ask under the lock). */
    static final long MUST_WAIT = -2L;
    /** The closed bit of the state word: its sign bit, so a closed word is negative. */
    private static final long CLOSED = Long.MIN_VALUE;

    final String name;
    /** Serve the newest waiter first and let a newcomer evict the oldest when the queue is full. */
    private final boolean lifo;
    /** Per priority ordinal: the slots that must stay free after a call of that priority takes its own. */
    final int[] headroom;
    /** {@code headroom[NORMAL]}, for the single-slot fast path. */
    private final int normalHeadroom;

    /** Closed bit, {@code waiting} in bits 32..62, signed {@code available} in the low 32 bits. */
    private volatile long state;
    volatile int maxConcurrency;
    volatile int maxQueue;
    /** Sequence lock for limit changes: odd while a change is in progress. Written under {@link #lock}. */
    volatile int limitChanges;
    /**
     * Bit {@code p} is set once a waiter of priority ordinal {@code p} has joined (sticky; written under the lock
     * before the CAS that counts the waiter, so a reader of the word that sees it counted sees the bit).
     */
    private volatile int queuedLevels;

    final SpinThenParkLock lock = new SpinThenParkLock();
    // Guarded by lock.
    private final WaiterQueue queue = new WaiterQueue();
    private boolean weightedQueued;
    /** Written once under the lock by the first close; completed by the release that frees the last slot. */
    private volatile CompletableFuture<Void> drained;

    /** The maximum wait, {@code null} for none; changed under the lock together with {@link #maxWaitNanos}. */
    private volatile Duration maxWait;
    /** The maximum wait in nanoseconds, 0 for none: read under the lock by a waiter as it joins the queue. */
    private volatile long maxWaitNanos;

    /**
     * The facts of a queue-full refusal at the current limits, with zero counts, kept for the one-allocation refusal
     * ({@link #queueFullTemplate()}); replaced when a limit changed. Racy by design: two threads may both replace it
     * with equal values.
     */
    private volatile Rejection queueFullTemplate;

    SlotQueue(String name, int maxConcurrency, int maxQueue, Duration maxWait, boolean lifo, int[] headroom) {
        this.name = name;
        this.maxWait = maxWait;
        this.maxWaitNanos = Arguments.boundedNanos(maxWait);
        this.maxConcurrency = maxConcurrency;
        this.maxQueue = maxQueue;
        this.state = pack(0, maxConcurrency);
        this.lifo = lifo;
        this.headroom = headroom.clone();
        this.normalHeadroom = headroom[Waiter.NORMAL];
    }

    // ---------------------------------------------------------------------------------------------------------
    // State word

    static int waiting(long state) {
        return (int) (state >>> 32) & Integer.MAX_VALUE;
    }

    static int available(long state) {
        return (int) state;
    }

    private static long pack(int waiting, int available) {
        return ((long) waiting << 32) | (available & 0xFFFF_FFFFL);
    }

    /** Adds to both halves by CAS, keeping the closed bit; used under the lock (see the design notes). */
    private void addToState(int waitingDelta, int availableDelta) {
        long current;
        do {
            current = state;
        } while (!STATE.compareAndSet(this, current, (current & CLOSED)
                | pack(waiting(current) + waitingDelta, available(current) + availableDelta)));
    }

    /**
     * Takes one slot at {@code NORMAL} priority if one is free and nobody waits. Lock-free and allocation-free.
     *
     * @return {@link #ADMITTED}; {@link #MUST_WAIT} when the caller may queue (or the bulkhead is closed: the
     *     lock path tells); otherwise the (non-negative) state word in which the queue was seen full, which is the
     *     linearization point of the refusal
     */
    long admitOrObserveFull() {
        long current = state;
        for (;;) {
            int high = (int) (current >>> 32); // waiting, or negative when closed
            if (high == 0 && available(current) > normalHeadroom) {
                // available > 0, so decrementing the word touches only the low half.
                if (STATE.compareAndSet(this, current, current - 1)) {
                    return ADMITTED;
                }
                current = state;
            } else if (high >= maxQueue) {
                return mayMakeRoom(high, Waiter.NORMAL) ? MUST_WAIT : current;
            } else {
                return MUST_WAIT;
            }
        }
    }

    /** {@link #admitOrObserveFull()} for any weight and priority ordinal. */
    long admitOrObserveFull(int weight, int priority) {
        int reserve = headroom[priority];
        long current = state;
        for (;;) {
            int high = (int) (current >>> 32);
            if (high == 0 && available(current) - weight >= reserve) {
                // available >= weight, so subtracting touches only the low half.
                if (STATE.compareAndSet(this, current, current - weight)) {
                    return ADMITTED;
                }
                current = state;
            } else if (high >= maxQueue) {
                return mayMakeRoom(high, priority) ? MUST_WAIT : current;
            } else {
                return MUST_WAIT;
            }
        }
    }

    /**
     * Whether a newcomer of {@code priority} that sees a full queue might still evict someone or be served before
     * everyone waiting, so that only the lock can decide: under LIFO, or when a waiter of a lower priority has ever
     * joined. Also when the queue holds more than a lowered {@code maxQueue}: nobody is evicted then, but a newcomer
     * above every waiter still takes free slots at once (docs/priorities.md). Read after the state word (see
     * {@link #queuedLevels}).
     */
    private boolean mayMakeRoom(int waiting, int priority) {
        return waiting > 0 && (lifo || (queuedLevels >>> (priority + 1)) != 0);
    }

    /**
     * Returns one slot taken at weight 1. Reports nothing to listeners: callers that ran an operation use
     * the bulkhead's {@code releaseAfterRun}.
     */
    void releaseUnused() {
        releaseSlots(1);
    }

    /** Returns {@code weight} slots. Lock-free when open and nobody waits; otherwise grants under the lock. */
    void releaseSlots(int weight) {
        long current = state;
        while (current >>> 32 == 0) {
            if (STATE.compareAndSet(this, current, pack(0, available(current) + weight))) {
                return;
            }
            current = state;
        }
        Waiter granted;
        CompletableFuture<Void> idle;
        lock.lock();
        try {
            addToState(0, weight);
            granted = grantReady();
            idle = drainedIfIdle();
        } finally {
            lock.unlock();
        }
        WaiterQueue.tellGranted(granted);
        if (idle != null) {
            idle.complete(null);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Queue (all under lock)

    /**
     * Grants waiters, next first, while the next one fits in {@code available} minus its priority's reserve;
     * unlinks abandoned nodes on the way. The caller holds the lock; the granted nodes own their slots now and
     * are returned as a chain to be told after unlocking.
     */
    private Waiter grantReady() {
        Waiter first = null;
        Waiter last = null;
        int removed = 0;
        int taken = 0;
        int available = available(state);
        for (Waiter candidate = queue.next(lifo); candidate != null; candidate = queue.next(lifo)) {
            if (candidate.status() == Waiter.WAITING
                    && available - taken - candidate.weight < headroom[candidate.priority]) {
                break; // strict order: nobody passes the next waiter
            }
            queue.unlink(candidate);
            removed++;
            if (candidate.tryGrant()) {
                taken += candidate.weight;
                if (last == null) {
                    first = candidate;
                } else {
                    last.decidedNext = candidate;
                }
                last = candidate;
            }
            // Lost to a cancellation or timeout: that waiter's owner will find it unlinked and do nothing more.
        }
        if (removed != 0) {
            addToState(-removed, -taken);
        }
        return first;
    }

    /**
     * Queues a waiter, or grants it its slots at once if it would be served first and they are free by the time
     * the lock is held. A full queue evicts a lower priority (or, LIFO, the oldest) to make room, or refuses.
     *
     * @return {@code null} when queued or granted on arrival ({@link Waiter#grantedOnArrival} tells which); the
     *     rejection when full, closed, or the weight exceeds the limit
     */
    Rejection enqueue(Waiter waiter) {
        int weight = waiter.weight;
        int level = waiter.priority;
        Waiter evicted = null;
        Waiter granted = null;
        Rejection rejection = null;
        lock.lock();
        try {
            long current = state;
            for (;;) {
                int waiting = waiting(current);
                int available = available(current);
                // Before closed, as on arrival: too heavy (for the limit less the reserves above) is the caller's
                // error.
                if (weight > maxConcurrency - headroom[level]) {
                    rejection = refusal(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT, current, 0L, level);
                    break;
                } else if (current < 0) {
                    rejection = refusal(Rejection.Reason.CLOSED, current, 0L, level);
                    break;
                } else if (available - weight >= headroom[level] && queue.wouldServeFirst(level, lifo)) {
                    // available >= weight: subtracting touches only the low half.
                    if (STATE.compareAndSet(this, current, current - weight)) {
                        waiter.grantOnArrival();
                        break;
                    }
                } else if (waiting >= maxQueue) {
                    Waiter victim = waiting == maxQueue && waiting > 0 ? queue.evictionCandidate(level, lifo) : null;
                    if (victim == null) {
                        rejection = refusal(Rejection.Reason.QUEUE_FULL, current, 0L, level);
                        break;
                    }
                    queue.unlink(victim);
                    addToState(-1, 0);
                    if (victim.tryAbandon(Waiter.EVICTED)) {
                        victim.decidedNext = evicted;
                        evicted = victim;
                    } // else abandoned meanwhile: unlinking it made room all the same
                } else {
                    int bit = 1 << level;
                    if ((queuedLevels & bit) == 0) {
                        queuedLevels |= bit; // before the CAS that counts the waiter
                    }
                    weightedQueued |= weight > 1;
                    if (STATE.compareAndSet(this, current, pack(waiting + 1, available))) {
                        // Linked after the CAS but still under the lock: a releaser that sees waiting > 0 takes the
                        // lock and therefore finds the node.
                        waiter.startWaiting(maxWaitNanos);
                        queue.linkLast(waiter);
                        break;
                    }
                }
                current = state;
            }
            if (available(state) > 0 && !queue.isEmpty()) {
                granted = grantReady(); // an eviction may have uncovered a waiter that fits
            }
        } finally {
            lock.unlock();
        }
        WaiterQueue.tellPushedOut(evicted);
        WaiterQueue.tellGranted(granted);
        return rejection;
    }

    /** Unlinks a waiter whose owner won the CAS to CANCELLED or TIMED_OUT, unless a releaser already did. */
    void removeAbandoned(Waiter waiter) {
        Waiter granted = null;
        lock.lock();
        try {
            if (waiter.linked) {
                queue.unlink(waiter);
                addToState(-1, 0);
                if (available(state) > 0) {
                    granted = grantReady(); // a heavier head or a reserve may have blocked the next one
                }
            }
        } finally {
            lock.unlock();
        }
        WaiterQueue.tellGranted(granted);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Close

    /**
     * First grants what pending removals made room for and decides the next waiter's refusal (see the design notes),
     * then sets the closed bit (once) and refuses every waiter still queued with {@code CLOSED}.
     *
     * @return how many waiters this call refused: 0 when the bulkhead was already closed
     */
    int closeQueue() {
        Waiter refused = null;
        Waiter granted;
        CompletableFuture<Void> idle;
        lock.lock();
        try {
            // Pending removals come first ("Abandoned waiters" in the design notes). The next waiter is refused on its
            // own first: once that CAS is won, nobody behind it could have been granted; if it was abandoned since
            // grantReady looked at it, its removal may let the next ones in, so grant again.
            granted = grantReady();
            Waiter head;
            while ((head = queue.next(lifo)) != null && !refuseHead(head)) {
                granted = WaiterQueue.concat(granted, grantReady());
            }
            long current;
            do {
                current = state;
            } while (current >= 0 && !STATE.compareAndSet(this, current, current | CLOSED));
            if (current >= 0) {
                drained = new CompletableFuture<>();
                refused = WaiterQueue.concat(head, queue.refuseAll(Rejection.Reason.CLOSED));
                if (queue.swept != 0) {
                    addToState(-queue.swept, 0);
                }
            }
            idle = drainedIfIdle();
        } finally {
            lock.unlock();
        }
        WaiterQueue.tellGranted(granted);
        int count = WaiterQueue.tellPushedOut(refused);
        if (idle != null) {
            idle.complete(null);
        }
        return count;
    }

    /**
     * Under the lock: decides the next waiter's refusal by a close, unless it was abandoned. It stays linked and
     * counted until {@link WaiterQueue#refuseAll} unlinks it after the closed bit is set: uncounted before, it would
     * let a newcomer in on the lock-free path (the model check found it).
     */
    private static boolean refuseHead(Waiter head) {
        head.refusal = Rejection.Reason.CLOSED;
        return head.tryAbandon(Waiter.REFUSED);
    }

    /** Under the lock: the drain future when closed and no slot is held any more, else {@code null}. */
    private CompletableFuture<Void> drainedIfIdle() {
        long current = state;
        CompletableFuture<Void> future = drained;
        return current < 0 && future != null && maxConcurrency - available(current) <= 0 && !future.isDone()
                ? future : null;
    }

    /** The future completed when the last slot is released after the close. Call after {@link #closeQueue()}. */
    CompletableFuture<Void> drained() {
        return drained;
    }

    /** Whether the bulkhead is closed: one volatile read. */
    boolean closed() {
        return state < 0;
    }

    /** The state word, for a refusal's counts. */
    long stateWord() {
        return state;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Refusals

    /** A refusal of a call of priority ordinal {@code level} with the counts of {@code observedState}. */
    Rejection refusal(Rejection.Reason reason, long observedState, long waitedNanos, int level) {
        int limit = maxConcurrency;
        return new Rejection(name, reason, limit, maxQueue, Math.max(0, limit - available(observedState)),
                waiting(observedState), waitedNanos <= 0L ? Duration.ZERO : Duration.ofNanos(waitedNanos),
                Waiter.priority(level));
    }

    /** The facts of a queue-full refusal at the current limits, with zero counts; see {@link #queueFullTemplate}. */
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
     * Checks {@code weight} against the limit read while no limit change is under way, and returns the sequence
     * lock's (even) {@link #limitChanges} it was read at. Why: a change writes the limit field and then the state
     * word, so a weight refused by the new field while the word still holds the old limit's free slots would let
     * the same thread's next, lighter call be admitted at the old limit: refused after the change, admitted before
     * it, which no order of the two explains (Lincheck's model check of the weighted bulkhead found it). Spins
     * only while a change, a few instructions under the lock, is half done. An admission needs no such care: the
     * word's free slots never exceed the limit they were counted under, so whatever the CAS takes is legal there.
     *
     * @throws IllegalArgumentException when such a call could never get its slots
     */
    int checkWeight(int weight, int level) {
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

    /** The caller's error of a weight that could never get its slots at {@code limit}. */
    IllegalArgumentException tooHeavy(int weight, int limit, int level) {
        int reserved = headroom[level];
        if (reserved == 0) {
            return new IllegalArgumentException("weight (" + weight + ") exceeds the maxConcurrency (" + limit
                    + ") of bulkhead '" + name + "': such a call could never get its slots");
        }
        return new IllegalArgumentException("weight (" + weight + ") exceeds the " + Math.max(0, limit - reserved)
                + " slots a " + Waiter.priority(level) + " call may take in bulkhead '" + name
                + "' (maxConcurrency " + limit + " less " + reserved + " reserved for higher priorities): such a "
                + "call could never get its slots");
    }

    // ---------------------------------------------------------------------------------------------------------
    // Limits and counts

    /** The queue limit. */
    int maxQueue() {
        return maxQueue;
    }

    /** Calls waiting in the queue. */
    int queuedCount() {
        return waiting(state);
    }

    /** The limit, read consistently with a change in progress; see {@link #executingCount()}. */
    int maxConcurrency() {
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
    int executingCount() {
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

    /** The maximum wait, {@code null} for none. */
    Duration maxWait() {
        return maxWait;
    }

    /** Changes the queue limit; callers already in the queue stay. */
    void changeMaxQueue(int newMaxQueue) {
        maxQueue = newMaxQueue;
    }

    /** Changes the maximum wait ({@code null} for none) of the waiters that join from now on. */
    void changeMaxWait(Duration newMaxWait) {
        lock.lock();
        try {
            // Both fields change under the lock so that maxWait() and the deadlines of newcomers agree.
            maxWait = newMaxWait;
            maxWaitNanos = Arguments.boundedNanos(newMaxWait);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Changes the limit (if {@code expected} is -1 or matches): first grants, at the old limit, what pending removals
     * made room for; then refuses waiters heavier than a lowered limit and grants the waiters a raise makes room for.
     */
    boolean changeLimit(int expected, int newMaxConcurrency) {
        Waiter early;
        Waiter granted;
        Waiter refused = null;
        CompletableFuture<Void> idle;
        lock.lock();
        try {
            int delta = newMaxConcurrency - maxConcurrency;
            if (delta == 0 || (expected != -1 && expected != maxConcurrency)) {
                return false;
            }
            early = grantReady(); // at the old limit: see "Abandoned waiters" in the design notes
            limitChanges++;
            maxConcurrency = newMaxConcurrency;
            addToState(0, delta);
            limitChanges++;
            if (delta < 0 && weightedQueued) {
                refused = queue.refuseTooHeavy(newMaxConcurrency, headroom);
                if (queue.swept != 0) {
                    addToState(-queue.swept, 0);
                }
            }
            granted = grantReady();
            idle = drainedIfIdle();
        } finally {
            lock.unlock();
        }
        WaiterQueue.tellGranted(early);
        WaiterQueue.tellPushedOut(refused);
        WaiterQueue.tellGranted(granted);
        if (idle != null) {
            idle.complete(null);
        }
        return true;
    }

    /**
     * The waiter queue itself, the data structure the slot queue orders its waiters in (kept here because nothing
     * else uses it): one doubly linked FIFO list per {@link Priority}, which waiter is served next, which one a
     * newcomer may evict, and the bookkeeping of linking and unlinking. Not thread-safe: every method is called with
     * the slot queue's {@link SlotQueue#lock} held (the lock is the queue's only synchronization).
     *
     * <p>Invariant: bit {@code p} of {@link #levels} is set exactly when list {@code p} is not empty, so the highest
     * priority that waits is {@code Integer.numberOfTrailingZeros(levels)} (ordinal 0 is the highest) and finding the
     * next waiter costs one bit scan whatever the number of priorities.
     */
    static final class WaiterQueue {

        static final int LEVELS = Priority.values().length;

        private final Waiter[] heads = new Waiter[LEVELS];
        private final Waiter[] tails = new Waiter[LEVELS];
        /** Bit {@code p} set while list {@code p} is not empty. */
        private int levels;
        /** How many nodes the last {@link #refuseAll} unlinked (the caller subtracts them from the state word). */
        int swept;

        /** Whether no waiter is linked. */
        boolean isEmpty() {
            return levels == 0;
        }

        /**
         * The waiter a freed slot goes to: the oldest (FIFO) or newest (LIFO) of the highest priority that waits.
         *
         * @return the waiter, or {@code null} when none waits
         */
        Waiter next(boolean lifo) {
            if (levels == 0) {
                return null;
            }
            int level = Integer.numberOfTrailingZeros(levels);
            return lifo ? tails[level] : heads[level];
        }

        /**
         * Whether a newcomer of {@code priority} would be the next one served if it were linked now: nobody of a higher
         * priority waits, nor (FIFO) anybody of its own.
         */
        boolean wouldServeFirst(int priority, boolean lifo) {
            int ahead = lifo ? (1 << priority) - 1 : (1 << (priority + 1)) - 1;
            return (levels & ahead) == 0;
        }

        /**
         * The waiter a newcomer of {@code priority} may evict when the queue is full: the newest waiter of the lowest
         * priority below the newcomer's; with LIFO and nobody lower, the oldest waiter of the newcomer's own priority.
         *
         * @return the candidate, or {@code null} when nobody may be evicted (the newcomer is then refused)
         */
        Waiter evictionCandidate(int priority, boolean lifo) {
            int lower = levels & -(1 << (priority + 1)); // the levels strictly below the newcomer's
            if (lower != 0) {
                return tails[31 - Integer.numberOfLeadingZeros(lower)];
            }
            return lifo ? heads[priority] : null;
        }

        /** The oldest waiter of the highest priority, to walk the whole queue with {@link #following}. */
        Waiter first() {
            return levels == 0 ? null : heads[Integer.numberOfTrailingZeros(levels)];
        }

        /** The waiter after {@code waiter} in the walk of {@link #first()}: the same list, then the next lower one. */
        Waiter following(Waiter waiter) {
            if (waiter.next != null) {
                return waiter.next;
            }
            int below = levels & -(1 << (waiter.priority + 1));
            return below == 0 ? null : heads[Integer.numberOfTrailingZeros(below)];
        }

        /**
         * Unlinks every waiter and refuses those still open with {@code reason}, writing {@link Waiter#refusal} before
         * the deciding CAS. Sets {@link #swept} to the number unlinked.
         *
         * @return the chain of refused waiters, to be told after unlocking
         */
        Waiter refuseAll(Rejection.Reason reason) {
            return sweep(reason, 0, null);
        }

        /**
         * Unlinks every waiter that could never be granted at {@code limit}: heavier than the limit less its priority's
         * {@code headroom}, the slots that must stay free after it takes its own. Refuses those still open with
         * {@code WEIGHT_EXCEEDS_LIMIT}, as {@link #refuseAll} does. Left queued, such a head would hold every later
         * waiter behind it for good, with the slots free.
         *
         * @return the chain of refused waiters, to be told after unlocking
         */
        Waiter refuseTooHeavy(int limit, int[] headroom) {
            return sweep(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT, limit, headroom);
        }

        /** Unlinks and refuses all waiters ({@code headroom == null}) or those too heavy for {@code limit}. */
        private Waiter sweep(Rejection.Reason reason, int limit, int[] headroom) {
            Waiter refused = null;
            int removed = 0;
            Waiter waiter = first();
            while (waiter != null) {
                Waiter following = following(waiter);
                if (headroom == null || waiter.weight > limit - headroom[waiter.priority]) {
                    unlink(waiter);
                    removed++;
                    waiter.refusal = reason;
                    if (waiter.tryAbandon(Waiter.REFUSED)) {
                        waiter.decidedNext = refused;
                        refused = waiter;
                    }
                }
                waiter = following;
            }
            swept = removed;
            return refused;
        }

        /** The chain {@code first} followed by the chain {@code then} (either may be {@code null}). */
        static Waiter concat(Waiter first, Waiter then) {
            if (first == null) {
                return then;
            }
            Waiter last = first;
            while (last.decidedNext != null) {
                last = last.decidedNext;
            }
            last.decidedNext = then;
            return first;
        }

        /** Tells a chain of granted nodes, outside the lock. */
        static void tellGranted(Waiter chain) {
            while (chain != null) {
                Waiter next = chain.decidedNext;
                chain.decidedNext = null;
                chain.granted();
                chain = next;
            }
        }

        /**
         * Tells a chain of evicted or refused nodes, outside the lock; returns how many learnt it (not an asynchronous
         * caller that cancelled its future meanwhile: a drain's count of refused waiters then agrees with what every
         * caller saw).
         */
        static int tellPushedOut(Waiter chain) {
            int count = 0;
            while (chain != null) {
                Waiter next = chain.decidedNext;
                chain.decidedNext = null;
                if (chain.evicted()) {
                    count++;
                }
                chain = next;
            }
            return count;
        }

        void linkLast(Waiter waiter) {
            int level = waiter.priority;
            Waiter last = tails[level];
            waiter.previous = last;
            if (last == null) {
                heads[level] = waiter;
                levels |= 1 << level;
            } else {
                last.next = waiter;
            }
            tails[level] = waiter;
            waiter.linked = true;
        }

        void unlink(Waiter waiter) {
            int level = waiter.priority;
            Waiter before = waiter.previous;
            Waiter after = waiter.next;
            if (before == null) {
                heads[level] = after;
            } else {
                before.next = after;
            }
            if (after == null) {
                tails[level] = before;
            } else {
                after.previous = before;
            }
            if (heads[level] == null) {
                levels &= ~(1 << level);
            }
            waiter.previous = null;
            waiter.next = null;
            waiter.linked = false;
        }

        /** The headroom of each priority level, from the configuration's reserves. */
        static int[] headroomOf(BulkheadConfig config) {
            int[] headroom = new int[WaiterQueue.LEVELS];
            for (int level = 0; level < headroom.length; level++) {
                headroom[level] = config.headroom(Waiter.priority(level));
            }
            return headroom;
        }
    }
}
