package dev.bulwark.redis;

/**
 * What a {@link RedisBulkhead} does when it cannot get a decision from Redis: the server is unreachable, a
 * command timed out, or a waiter's place in the queue vanished (its lease ran out while this instance could not
 * renew it, or the server restarted and lost its state).
 */
public enum FailureMode {

    /**
     * Refuse the call: the overflow handler gets a {@link dev.bulwark.Rejection} with reason
     * {@link dev.bulwark.Rejection.Reason#UNAVAILABLE} and the call ends with
     * {@link dev.bulwark.BulkheadRejectedException}. The default: a bulkhead protects a shared resource, so when
     * the limit cannot be enforced, the safe choice is not to call the resource.
     */
    FAIL_CLOSED,

    /**
     * Run the call without a permit: nothing limits it, {@link RedisBulkheadListener#ranWithoutPermit} reports
     * it, and the core listeners see it admitted and released as usual. For resources where availability matters
     * more than the limit.
     */
    FAIL_OPEN
}
