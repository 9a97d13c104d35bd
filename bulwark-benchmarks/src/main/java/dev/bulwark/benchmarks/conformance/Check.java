package dev.bulwark.benchmarks.conformance;

/**
 * One property a bulkhead must have before its figures mean anything. Each is checked on a fresh bulkhead by
 * {@link ConformanceCheck}.
 */
public enum Check {

    /**
     * Synchronous calls: admits up to the limit, refuses beyond it without running the work, admits again after
     * release, twice over.
     */
    SYNC_LIMIT("sync: admits up to the limit, refuses beyond it, admits up to the limit again after release"),

    /** Asynchronous calls: the same, and a refusal completes the returned future before the call returns. */
    ASYNC_LIMIT("async: admits up to the limit, a refusal completes the future at once, admits again after release"),

    /**
     * An asynchronous call that must wait returns at once, holding no thread, and runs in arrival order when slots free
     * up.
     */
    ASYNC_WAIT("async: a waiting call holds no thread and queued calls run in arrival order"),

    /** Blocked callers get the slot in arrival order and a newcomer does not barge ahead of them. */
    SYNC_FIFO("sync: waiters get the slot in arrival order, no barging");

    private final String description;

    Check(String description) {
        this.description = description;
    }

    /**
     * Returns what the check verifies, in one line.
     *
     * @return the description
     */
    public String description() {
        return description;
    }
}
