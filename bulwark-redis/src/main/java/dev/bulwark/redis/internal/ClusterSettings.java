package dev.bulwark.redis.internal;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.redis.FailureMode;
import dev.bulwark.redis.RedisBulkheadListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Everything a {@link ClusterBulkhead} is built from, already checked by the public builder. Immutable.
 *
 * @param name the bulkhead's name, shared by every instance that uses the same bulkhead
 * @param initialLimits the limits used when Redis holds none yet
 * @param lease how long a permit or a waiter stays valid without renewal
 * @param heartbeatInterval how often held permits and waiters are renewed
 * @param pollInterval how often waiters ask whether they were granted, in case a wake-up was missed
 * @param commandTimeout how long to wait for any reply from Redis
 * @param failureMode what to do when Redis cannot decide
 * @param rejectionHandler the overflow handler, or {@code null}
 * @param listeners the core listeners
 * @param redisListeners the Redis-specific listeners
 * @param ticker the local monotonic clock (for waits and timings only; leases use the server's clock)
 * @param scheduler the timer for maximum waits, command timeouts, heartbeats and polls
 * @param executor where asynchronous operations start and asynchronous outcomes are delivered
 * @param adaptiveLimit the adaptive limit, or {@code null} for a limit that only changes by hand
 * @param releaseFlusher where the releases that no script carried are flushed, or {@code null} (always, outside
 *     the module's tests) for the command connection's own I/O event loop (see {@link ReleaseFlusher}); the tests
 *     that count exactly what rides on what give an executor they hold
 * @param maxHoldTime how long a permit may be held before this instance ends it, or {@code null} for no bound
 */
public record ClusterSettings(String name, ClusterLimits initialLimits, Duration lease, Duration heartbeatInterval,
                       Duration pollInterval, Duration commandTimeout, FailureMode failureMode,
                       Consumer<? super Rejection> rejectionHandler, List<BulkheadListener> listeners,
                       List<RedisBulkheadListener> redisListeners, Ticker ticker, Scheduler scheduler,
                       Executor executor, AdaptiveLimit adaptiveLimit, Executor releaseFlusher,
                       Duration maxHoldTime) {

    /**
     * Copies the listener lists.
     */
    public ClusterSettings {
        listeners = List.copyOf(listeners);
        redisListeners = List.copyOf(redisListeners);
    }

    /** The settings without a maximum hold time. */
    public ClusterSettings(String name, ClusterLimits initialLimits, Duration lease, Duration heartbeatInterval,
                           Duration pollInterval, Duration commandTimeout, FailureMode failureMode,
                           Consumer<? super Rejection> rejectionHandler, List<BulkheadListener> listeners,
                           List<RedisBulkheadListener> redisListeners, Ticker ticker, Scheduler scheduler,
                           Executor executor, AdaptiveLimit adaptiveLimit, Executor releaseFlusher) {
        this(name, initialLimits, lease, heartbeatInterval, pollInterval, commandTimeout, failureMode,
                rejectionHandler, listeners, redisListeners, ticker, scheduler, executor, adaptiveLimit, releaseFlusher,
                null);
    }
}
