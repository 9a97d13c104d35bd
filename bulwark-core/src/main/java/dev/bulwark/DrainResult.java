package dev.bulwark;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link Bulkhead#drain(Duration)} found: how many queued waiters it refused, how many calls still held a
 * slot when it returned, and how long it waited for them. Immutable and thread-safe.
 *
 * @param bulkheadName the name of the drained bulkhead
 * @param refusedWaiters how many queued waiters this drain refused with {@link Rejection.Reason#CLOSED} (0 for
 *     a drain of a bulkhead that was already closed: the first close refused them). A waiter counts only if it
 *     learnt the refusal: an asynchronous caller that completed (or, on a per-key or cluster bulkhead, cancelled)
 *     its future itself at the same instant saw its own outcome instead and is not counted, so the count agrees
 *     with what every caller saw. On an in-process {@link Bulkhead}, a cancel of a queued future that comes after
 *     the close decided the refusal returns {@code false}, and the future fails with the refusal
 * @param stillExecuting how many calls held a slot when the drain returned (0 when it completed)
 * @param waited how long the drain waited for running calls
 */
public record DrainResult(String bulkheadName, int refusedWaiters, int stillExecuting, Duration waited) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException when {@code bulkheadName} or {@code waited} is {@code null}
     * @throws IllegalArgumentException when a count or {@code waited} is negative
     */
    public DrainResult {
        Objects.requireNonNull(bulkheadName, "bulkheadName");
        Objects.requireNonNull(waited, "waited");
        if (refusedWaiters < 0) {
            throw new IllegalArgumentException("refusedWaiters must not be negative but was " + refusedWaiters);
        }
        if (stillExecuting < 0) {
            throw new IllegalArgumentException("stillExecuting must not be negative but was " + stillExecuting);
        }
        if (waited.isNegative()) {
            throw new IllegalArgumentException("waited must not be negative but was " + waited);
        }
    }

    /**
     * Returns whether every running call had released its slot when the drain returned.
     *
     * @return {@code true} when {@link #stillExecuting()} is 0
     */
    public boolean isComplete() {
        return stillExecuting == 0;
    }
}
