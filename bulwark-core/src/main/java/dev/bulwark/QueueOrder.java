package dev.bulwark;

/** The order in which a bulkhead hands freed slots to waiting calls. */
public enum QueueOrder {

    /**
     * First come, first served (the default): the longest-waiting call gets the next slot, and a call that finds
     * the queue full is refused, unless someone of a lower {@link Priority} waits: it then evicts the newest of the
     * lowest priority waiting (see {@link Priority}).
     */
    FIFO,

    /**
     * Last come, first served: the newest waiting call gets the next slot, and a call that finds the queue full
     * evicts the oldest waiting call, which is refused with {@link Rejection.Reason#EVICTED}. Under sustained
     * overload the oldest callers have usually given up already (their clients timed out), so serving the newest
     * keeps the goodput of the calls that still matter; at low load it behaves like FIFO.
     */
    LIFO
}
