package dev.bulwark.internal.bulkhead;

import dev.bulwark.BulkheadConfig;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;

/**
 * The waiters of one {@link SlotQueue}, as one doubly linked FIFO list per {@link Priority}: which waiter is served
 * next, which one a newcomer may evict, and the bookkeeping of linking and unlinking. Not thread-safe: every method
 * is called with the bulkhead's lock held (the lock is the queue's only synchronization).
 *
 * <p>Invariant: bit {@code p} of {@link #levels} is set exactly when list {@code p} is not empty, so the highest
 * priority that waits is {@code Integer.numberOfTrailingZeros(levels)} (ordinal 0 is the highest) and finding the
 * next waiter costs one bit scan whatever the number of priorities.
 */
final class WaiterQueue {

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
