package dev.bulwark.redis;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.BulkheadListener;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.internal.spi.Arguments;
import dev.bulwark.redis.internal.ClusterLimits;
import dev.bulwark.redis.internal.ClusterSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;

/**
 * The settings a {@link RedisBulkhead.Builder} collects, and their setters: kept apart from the builder, which
 * only knows the client and the name and connects. Each setter checks its argument at once and names it in the
 * exception. Not thread-safe.
 */
abstract sealed class BuilderSettings permits RedisBulkhead.Builder {

    private int maxConcurrency = 10;
    private int maxQueue;
    private Duration maxWait;
    private Consumer<? super Rejection> rejectionHandler;
    private final List<BulkheadListener> listeners = new ArrayList<>();
    private final List<RedisBulkheadListener> redisListeners = new ArrayList<>();
    private Duration leaseDuration = Duration.ofSeconds(10);
    private Duration heartbeatInterval = Duration.ofSeconds(3);
    /** {@code null}: no bound. */
    private Duration maxHoldTime;
    private Duration pollInterval = Duration.ofSeconds(1);
    private Duration commandTimeout = Duration.ofSeconds(1);
    private FailureMode failureMode = FailureMode.FAIL_CLOSED;
    private Ticker ticker = Ticker.system();
    private Scheduler scheduler = Scheduler.shared();
    private Executor executor = ForkJoinPool.commonPool();
    private Executor releaseFlusher;
    private AdaptiveLimit adaptiveLimit;
    /** {@code null}: the exact mode. */
    private Duration renewalPeriod;


    /**
     * Sets the cluster-wide concurrency limit used when Redis holds none yet. Default: 10.
     *
     * @param maxConcurrency at least 1
     * @return this builder
     * @throws IllegalArgumentException when {@code maxConcurrency} is less than 1
     */
    public RedisBulkhead.Builder maxConcurrency(int maxConcurrency) {
        this.maxConcurrency = Arguments.requireMaxConcurrency(maxConcurrency);
        return self();
    }

    /**
     * Sets the cluster-wide queue limit used when Redis holds none yet. Default: 0 (refuse at once when no
     * permit is free).
     *
     * @param maxQueue at least 0
     * @return this builder
     * @throws IllegalArgumentException when {@code maxQueue} is negative
     */
    public RedisBulkhead.Builder maxQueue(int maxQueue) {
        this.maxQueue = Arguments.requireMaxQueue(maxQueue);
        return self();
    }

    /**
     * Sets the cluster-wide maximum wait used when Redis holds none yet. Default: no bound.
     *
     * @param maxWait a positive duration
     * @return this builder
     * @throws NullPointerException when {@code maxWait} is {@code null}
     * @throws IllegalArgumentException when {@code maxWait} is zero or negative
     */
    public RedisBulkhead.Builder maxWait(Duration maxWait) {
        this.maxWait = Arguments.requirePositive(Objects.requireNonNull(maxWait, "maxWait"), "maxWait");
        return self();
    }

    /**
     * Sets the overflow handler, called with every {@link Rejection} before the refusal is thrown (or completes
     * an asynchronous call's future), on the refused caller's thread or, for an asynchronous call, on the
     * executor. Never called for cancellations.
     *
     * @param handler the handler
     * @return this builder
     * @throws NullPointerException when {@code handler} is {@code null}
     */
    public RedisBulkhead.Builder onRejected(Consumer<? super Rejection> handler) {
        this.rejectionHandler = Objects.requireNonNull(handler, "handler");
        return self();
    }

    /**
     * Adds a core listener (admitted, rejected, cancelled, released), called for this instance's calls.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public RedisBulkhead.Builder listener(BulkheadListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return self();
    }

    /**
     * Adds a listener for lost permits and calls run without a permit.
     *
     * @param listener the listener
     * @return this builder
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public RedisBulkhead.Builder redisListener(RedisBulkheadListener listener) {
        redisListeners.add(Objects.requireNonNull(listener, "listener"));
        return self();
    }

    /**
     * Sets how long a permit or a waiter stays valid in Redis without a renewal: the longest a crashed
     * instance's permits and queue places stay taken. Default: 10 seconds. Must be longer than the heartbeat
     * interval and the command timeout; a lease of three heartbeats or more survives a missed heartbeat.
     *
     * @param leaseDuration a positive duration, at least one millisecond
     * @return this builder
     * @throws NullPointerException when {@code leaseDuration} is {@code null}
     * @throws IllegalArgumentException when it is shorter than one millisecond
     */
    public RedisBulkhead.Builder leaseDuration(Duration leaseDuration) {
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        if (leaseDuration.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("leaseDuration must be at least 1 ms but was " + leaseDuration);
        }
        this.leaseDuration = leaseDuration;
        return self();
    }

    /**
     * Sets how long a permit may be held: a permit held longer is ended by this instance at its next heartbeat
     * tick (released in Redis, so the slot goes to the next caller) and its holder is told through
     * {@link RedisBulkheadListener#permitLost} with cause {@link LostPermit.Cause#HELD_TOO_LONG}. The call itself
     * keeps running: a bulkhead never interrupts an operation, so pick a bound that no healthy call reaches. Default:
     * none (a permit is renewed until it is closed, collected unclosed, or its instance closes).
     *
     * @param maxHoldTime a positive duration
     * @return this builder
     * @throws NullPointerException when {@code maxHoldTime} is {@code null}
     * @throws IllegalArgumentException when it is zero or negative
     */
    public RedisBulkhead.Builder maxHoldTime(Duration maxHoldTime) {
        this.maxHoldTime = Arguments.requirePositive(
                Objects.requireNonNull(maxHoldTime, "maxHoldTime"), "maxHoldTime");
        return self();
    }

    /**
     * Sets how often this instance renews the leases of its permits and waiters (one script call per 500 of
     * them). Default: 3 seconds.
     *
     * @param heartbeatInterval a positive duration, shorter than the lease
     * @return this builder
     * @throws NullPointerException when {@code heartbeatInterval} is {@code null}
     * @throws IllegalArgumentException when it is zero or negative
     */
    public RedisBulkhead.Builder heartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = Arguments.requirePositive(
                Objects.requireNonNull(heartbeatInterval, "heartbeatInterval"), "heartbeatInterval");
        return self();
    }

    /**
     * Sets how often waiting calls ask Redis whether they were granted: the safety net behind pub/sub wake-ups,
     * which may be lost while the connection is down. Default: 1 second. Between polls, while calls wait, this
     * instance also checks at least every quarter {@linkplain #commandTimeout command timeout} that Redis answers
     * (one script with no ids, whatever the queue's length): that is how waiters learn Redis stopped answering.
     *
     * @param pollInterval a positive duration
     * @return this builder
     * @throws NullPointerException when {@code pollInterval} is {@code null}
     * @throws IllegalArgumentException when it is zero or negative
     */
    public RedisBulkhead.Builder pollInterval(Duration pollInterval) {
        this.pollInterval = Arguments.requirePositive(
                Objects.requireNonNull(pollInterval, "pollInterval"), "pollInterval");
        return self();
    }

    /**
     * Sets how long to wait for any reply from Redis before treating it as unavailable. Default: 1 second. It also
     * bounds how long a queued call takes to learn that Redis is gone: at most one and a quarter command timeouts
     * (at once when a standalone or Sentinel connection drops).
     *
     * @param commandTimeout a positive duration, shorter than the lease
     * @return this builder
     * @throws NullPointerException when {@code commandTimeout} is {@code null}
     * @throws IllegalArgumentException when it is zero or negative
     */
    public RedisBulkhead.Builder commandTimeout(Duration commandTimeout) {
        this.commandTimeout = Arguments.requirePositive(
                Objects.requireNonNull(commandTimeout, "commandTimeout"), "commandTimeout");
        return self();
    }

    /**
     * Sets what to do when Redis cannot decide. Default: {@link FailureMode#FAIL_CLOSED}.
     *
     * @param failureMode the failure mode
     * @return this builder
     * @throws NullPointerException when {@code failureMode} is {@code null}
     */
    public RedisBulkhead.Builder failureMode(FailureMode failureMode) {
        this.failureMode = Objects.requireNonNull(failureMode, "failureMode");
        return self();
    }

    /**
     * Sets the local clock used to time waits (for tests). A lease's expiry in Redis uses the server's
     * {@code TIME}, never this clock, but this instance's side of its leases is timed by it: when to renew (the
     * heartbeat) and when to give a held permit up as lost because its renewals failed. A test with a fake ticker
     * must therefore move it with real time (and with the scheduler): a frozen one stops the renewals, so held
     * permits expire in Redis unannounced, and one moved far ahead reports held permits
     * {@linkplain RedisBulkheadListener#permitLost lost}. Default: {@link Ticker#system()}.
     *
     * @param ticker the ticker
     * @return this builder
     * @throws NullPointerException when {@code ticker} is {@code null}
     */
    public RedisBulkhead.Builder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return self();
    }

    /**
     * Sets the scheduler for maximum waits, command timeouts, heartbeats and polls. Default:
     * {@link Scheduler#shared()}.
     *
     * @param scheduler the scheduler
     * @return this builder
     * @throws NullPointerException when {@code scheduler} is {@code null}
     */
    public RedisBulkhead.Builder scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return self();
    }

    /**
     * Sets where asynchronous operations start and where the grants, refusals and cancellations of asynchronous
     * calls (their futures, the overflow handler, listeners) are delivered; an operation's own outcome comes on the
     * thread that completes its stage. Default: {@link ForkJoinPool#commonPool()}. Whenever this executor throws
     * instead of taking a task (shut down before the bulkhead is closed, or any other exception or error), that
     * delivery goes to the common pool, so a queued caller still learns its fate, and not on a Redis I/O thread
     * (unless the common pool refuses too).
     *
     * @param executor the executor
     * @return this builder
     * @throws NullPointerException when {@code executor} is {@code null}
     */
    public RedisBulkhead.Builder executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return self();
    }

    /**
     * Makes the cluster-wide concurrency limit adaptive. Every instance runs the algorithm on its own calls (their
     * latency from grant to close, and their outcomes by the limit's drop predicate, sampled and windowed exactly as
     * in {@link dev.bulwark.Bulkhead.Builder#adaptive the in-process bulkhead}) and applies each decision to the limit
     * all instances share as a compare-and-set in Redis: "set it to {@code next} only if it still is
     * {@code expected}", sent without waiting, so the caller's call never waits for it and at most one decision per
     * observed limit wins across the fleet. With {@link dev.bulwark.SelfTuningLimit}, whose first measurement and
     * periodic probes pin the limit low, one instance decides at a time: the first applied decision claims the limit
     * for 30 seconds, renewed by each further one, and the other instances' decisions lose meanwhile (a decider that
     * stops is replaced once its claim runs out). Calls run without a permit ({@link FailureMode#FAIL_OPEN}) and lost
     * permits are not sampled, and nothing is written while Redis does not answer. {@link #maxConcurrency(int)}
     * initializes the limit when Redis holds none yet and must lie within the adaptive range. Default: none (the
     * limit changes only through {@link RedisBulkhead#changeMaxConcurrency}).
     *
     * @param limit the algorithm and its bounds
     * @return this builder
     * @throws NullPointerException when {@code limit} is {@code null}
     */
    public RedisBulkhead.Builder adaptive(AdaptiveLimit limit) {
        this.adaptiveLimit = Objects.requireNonNull(limit, "limit");
        return self();
    }

    /**
     * Selects the leased mode: instead of asking Redis at every admission (the exact mode, the default), each
     * instance leases a block of the fleet's limit and admits its calls in-process within it, through the
     * in-process bulkhead (its queue of {@link #maxQueue} places, {@link #maxWait}, priorities and cancellation,
     * all per instance); a call never touches Redis. Every {@code renewalPeriod} (jittered by &plusmn;25%) the
     * instance reports its demand (executing plus queued) and Redis re-divides {@link #maxConcurrency} max-min
     * fairly by demand; a block's lease lasts three periods, after which a silent instance's block returns to the
     * others and the instance itself falls to the floor of its {@link #failureMode} (see docs/cluster.md, "Leased
     * mode"). Not combinable with {@link #adaptive}; weights other than 1 are refused.
     *
     * @param renewalPeriod how often each instance renews its lease, at least one millisecond
     * @return this builder
     * @throws NullPointerException when {@code renewalPeriod} is {@code null}
     * @throws IllegalArgumentException when it is shorter than one millisecond
     */
    public RedisBulkhead.Builder leased(Duration renewalPeriod) {
        Objects.requireNonNull(renewalPeriod, "renewalPeriod");
        if (renewalPeriod.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("renewalPeriod must be at least 1 ms but was " + renewalPeriod);
        }
        this.renewalPeriod = renewalPeriod;
        return self();
    }

    /** The leased mode's renewal period, or {@code null} for the exact mode. */
    final Duration renewalPeriod() {
        return renewalPeriod;
    }

    /**
     * Checks the settings against each other and freezes them.
     *
     * @throws IllegalArgumentException when the heartbeat interval or the command timeout is not shorter than the
     *     lease, or when {@code maxConcurrency} lies outside the adaptive limit's range
     */
    final ClusterSettings settings(String name) {
        if (renewalPeriod != null && adaptiveLimit != null) {
            throw new IllegalArgumentException("adaptive limits are not supported in the leased mode (leased("
                    + renewalPeriod + ")); choose one of adaptive and leased");
        }
        if (adaptiveLimit != null && (maxConcurrency < adaptiveLimit.minLimit()
                || maxConcurrency > adaptiveLimit.maxLimit())) {
            throw new IllegalArgumentException("maxConcurrency (" + maxConcurrency + ") is the starting limit "
                    + "and must lie within the adaptive range [" + adaptiveLimit.minLimit() + ", "
                    + adaptiveLimit.maxLimit() + "]");
        }
        if (heartbeatInterval.compareTo(leaseDuration) >= 0) {
            throw new IllegalArgumentException("heartbeatInterval must be shorter than leaseDuration but was "
                    + heartbeatInterval + " with a lease of " + leaseDuration);
        }
        if (commandTimeout.compareTo(leaseDuration) >= 0) {
            throw new IllegalArgumentException("commandTimeout must be shorter than leaseDuration but was "
                    + commandTimeout + " with a lease of " + leaseDuration);
        }
        return new ClusterSettings(name, new ClusterLimits(maxConcurrency, maxQueue,
                maxWait == null ? 0L : Arguments.boundedNanos(maxWait)), leaseDuration, heartbeatInterval,
                pollInterval, commandTimeout, failureMode, rejectionHandler, listeners, redisListeners, ticker,
                scheduler, executor, adaptiveLimit, releaseFlusher, maxHoldTime);
    }

    /**
     * The tests' seam, not API: flushes the releases that no script carried on {@code flusher} instead of the
     * command connection's I/O event loop, so that a test holding it counts exactly what rides on what.
     */
    final RedisBulkhead.Builder releaseFlusher(Executor flusher) {
        this.releaseFlusher = Objects.requireNonNull(flusher, "flusher");
        return self();
    }

    private RedisBulkhead.Builder self() {
        // Sealed: the builder is the only subclass.
        return (RedisBulkhead.Builder) this;
    }
}
