package dev.bulwark.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * A permit whose lease this instance no longer holds in Redis: the call that holds it keeps running, but the
 * cluster no longer counts it, so another call may already use its slot. Handed to
 * {@link RedisBulkheadListener#permitLost(LostPermit)}. Immutable and thread-safe.
 *
 * @param bulkheadName the name of the bulkhead
 * @param permitId the permit's id, unique across the cluster
 * @param heldFor how long the permit had been held when the loss was noticed
 * @param cause how the loss was noticed
 */
public record LostPermit(String bulkheadName, String permitId, Duration heldFor, Cause cause) {

    /**
     * Checks the components.
     *
     * @throws NullPointerException when a component is {@code null}
     */
    public LostPermit {
        Objects.requireNonNull(bulkheadName, "bulkheadName");
        Objects.requireNonNull(permitId, "permitId");
        Objects.requireNonNull(heldFor, "heldFor");
        Objects.requireNonNull(cause, "cause");
    }

    /** How a lost permit was noticed. */
    public enum Cause {
        /**
         * Redis answered a renewal (or the release) saying it does not know the permit: its lease expired before
         * it was renewed (a long pause, a partition), or the server lost its state (restart, failover).
         */
        UNKNOWN_TO_REDIS,
        /**
         * This instance could not renew the lease (Redis unreachable or too slow), and its next attempt could no
         * longer be answered before the lease ends: reported while the lease still runs (with the default settings,
         * or any lease of at least the heartbeat interval plus two and a quarter command timeouts; with a shorter
         * lease the notice may only come as it ends), so the server drops the permit soon (when the holder closes it,
         * its release frees the slot at once if Redis still counts it).
         */
        LEASE_NOT_RENEWED,
        /**
         * The instance was closed ({@code close()} or {@code drain}) and the call still held the permit one lease
         * after the drain's deadline: the instance released it in Redis and shut down, so that no permit outlives
         * its bulkhead. The call keeps running; closing the permit later changes nothing.
         */
        BULKHEAD_CLOSED,
        /**
         * The permit was held longer than the builder's {@code maxHoldTime}: the instance released it in Redis at
         * its first heartbeat tick after that time. The call keeps running (a bulkhead never interrupts it);
         * closing the permit later changes nothing.
         */
        HELD_TOO_LONG
    }
}
