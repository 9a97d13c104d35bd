package dev.bulwark;

/**
 * Priority of a call in a bulkhead's queue: served highest first, FIFO within one. {@link #NORMAL} is the default.
 *
 * <p>The ordinal orders them: {@link #CRITICAL} (ordinal 0) is the highest, {@link #SHEDDABLE} the lowest. A fixed
 * small set, rather than an open integer range, keeps the queue an array of five FIFO lists (serving the next
 * waiter costs one bit scan, not a heap operation), keeps the meters' tag set bounded, and is all that load
 * shedding needs in practice: what must run, what should, what may, and what goes first when overloaded.
 *
 * <p>What a priority changes, in a bulkhead's queue (see {@link CallOptions} and
 * {@link Bulkhead.Builder#reserve(Priority, int)}):
 * <ul>
 *   <li>a freed slot goes to the oldest waiter of the highest priority that waits;</li>
 *   <li>a newcomer of a priority above every waiter's takes its slots at once if they are free (a heavier or
 *       reserve-bound waiter of a lower priority keeps waiting), except through {@link Bulkhead#tryAcquireWith},
 *       which takes slots only while nobody waits at all;</li>
 *   <li>a newcomer that finds the queue full evicts the newest waiter of the lowest priority below its own
 *       ({@link Rejection.Reason#EVICTED}), or is refused if nobody waits at a lower priority;</li>
 *   <li>slots reserved for higher priorities are not taken by lower ones.</li>
 * </ul>
 */
public enum Priority {
    /**
     * Must run: never evicted by a lower priority (with {@link QueueOrder#FIFO} never evicted at all; with
     * {@link QueueOrder#LIFO} a newer {@code CRITICAL} call evicts the oldest {@code CRITICAL} waiter), may use
     * every reserved slot.
     */
    CRITICAL,
    /** Important: served before the default. */
    HIGH,
    /** The default priority of every call that does not say otherwise. */
    NORMAL,
    /** May wait: served after the default, evicted before it. */
    LOW,
    /**
     * Goes first under overload: served last, evicted first; never evicts a higher priority (with
     * {@link QueueOrder#LIFO} a newer {@code SHEDDABLE} call evicts the oldest {@code SHEDDABLE} waiter).
     */
    SHEDDABLE
}
