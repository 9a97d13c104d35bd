package dev.bulwark.redis;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadListener;
import dev.bulwark.CallOptions;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Subscription;
import dev.bulwark.ThrowingSupplier;
import dev.bulwark.Ticker;
import dev.bulwark.internal.util.Arguments;
import dev.bulwark.redis.internal.BulkheadEngine;
import dev.bulwark.redis.internal.ClusterConnections;
import dev.bulwark.redis.internal.ClusterLimits;
import dev.bulwark.redis.internal.ClusterSettings;
import dev.bulwark.redis.internal.lease.LeasedBulkhead;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A cluster-wide {@link Bulkhead}: at most {@code maxConcurrency} calls hold a permit at once across every
 * instance (every process, every machine) that builds a {@code RedisBulkhead} with the same name against the same
 * Redis. Waiters from all instances share one queue, served in arrival order.
 *
 * <p>It keeps the semantics of the in-process bulkhead ({@link Bulkhead#builder()}): admission without barging,
 * FIFO hand-off of a released permit to the head waiter, refusal with {@link Rejection.Reason#QUEUE_FULL} or
 * {@link Rejection.Reason#WAIT_TIMEOUT}, cancellation by signal, interruption or cancelled future, the operation's
 * own exceptions passed through untouched, and release exactly once. What differs, because the state lives in
 * Redis:
 * <ul>
 *   <li><b>Cost.</b> An uncontended call makes one round trip to acquire (an {@code EVALSHA}) and sends one
 *       release, which it does not wait for and which usually rides on this instance's next acquire (one script
 *       per call instead of two; sent on its own when no acquire follows soon).</li>
 *   <li><b>Leases.</b> Every permit and waiter has a lease, renewed by a heartbeat; a crashed instance's permits
 *       and queue places come back within one lease. A holder whose lease was lost is told through
 *       {@link RedisBulkheadListener#permitLost}; the cluster no longer counts its permit (or will not once the
 *       lease ends), and its later close frees nobody else's slot.</li>
 *   <li><b>Failures.</b> When Redis cannot decide (unreachable, too slow, or it lost a waiter's place), the
 *       {@link FailureMode} decides: refuse with {@link Rejection.Reason#UNAVAILABLE} (the Redis failure is attached
 *       as the cause of the {@link dev.bulwark.BulkheadRejectedException}), or run without a permit.
 *       Commands are never queued while disconnected and replayed later. Queued callers learn it fast: when a
 *       standalone or Sentinel connection drops they are decided at once (on Redis Cluster, whose node connections
 *       report to the client instead, at the next poll), and when Redis stops answering (paused, overloaded) within
 *       one and a quarter command timeouts (1.25 s with the defaults), never when their lease runs out. A holder
 *       whose lease can no longer be renewed in time is told through {@link RedisBulkheadListener#permitLost} while
 *       the lease still runs (with the defaults, or any lease of at least the heartbeat interval plus two command
 *       timeouts and a quarter; with a shorter lease the notice may only come as it ends).</li>
 *   <li><b>Limits</b> are stored in Redis and shared: {@link #changeMaxConcurrency}, {@link #changeMaxQueue} and
 *       {@link #changeMaxWait} change them for every instance (one round trip each). The builder's values only
 *       initialize them when Redis holds none yet (first use, or after Redis lost its data). {@link #maxConcurrency()}
 *       and the other getters return the values this instance last saw, which every script reply refreshes.</li>
 *   <li><b>Adaptive limit</b> ({@link Builder#adaptive}): every instance runs the algorithm on its own calls and
 *       moves the shared limit by compare-and-set in Redis, sent without waiting; at most one decision per observed
 *       limit wins across the fleet, and an instance that loses continues from the limit that won. With
 *       {@link dev.bulwark.SelfTuningLimit} one instance at a time decides (see {@link Builder#adaptive}).</li>
 *   <li><b>Counts.</b> {@link #executingCount()} and {@link #queuedCount()} are cluster-wide and cost one round
 *       trip each; {@link #localExecutingCount()} and {@link #localQueuedCount()} are this instance's own and
 *       free.</li>
 *   <li><b>Rejections</b> with reason {@code QUEUE_FULL} carry the cluster-wide counts the script saw; those of
 *       every other reason ({@code WAIT_TIMEOUT}, {@code UNAVAILABLE}, {@code EVICTED}, {@code CLOSED},
 *       {@code WEIGHT_EXCEEDS_LIMIT}), decided without a further round trip, carry this instance's counts. For an
 *       asynchronous call the overflow handler runs on the executor.</li>
 *   <li><b>Threads.</b> A sync caller parks while it waits; an async waiter holds no thread. Asynchronous operations
 *       start on the builder's executor (by default the common fork-join pool), and the grants, refusals and
 *       cancellations of asynchronous calls are delivered there, never on a Redis I/O thread. A call that fails
 *       before it queues (a weight above the limit, a signal already cancelled) fails its future on the calling
 *       thread; an operation's own outcome, and its {@code released} event, come on the thread that completes
 *       its stage.</li>
 * </ul>
 *
 * <p><b>Weights and priorities</b> ({@link dev.bulwark.CallOptions}, taken by
 * {@link #call(dev.bulwark.CallOptions, ThrowingSupplier)} and its siblings), cluster-wide:
 * <ul>
 *   <li>A call of weight {@code n} holds {@code n} slots of {@code maxConcurrency} and gives back exactly
 *       {@code n}, once: when its permit is closed, or when its lease expires (a crashed instance).</li>
 *   <li>The queue is strictly FIFO within a priority across every instance: a head waiter needing 3 slots is not
 *       passed by later 1-slot callers, which queue behind it; a newcomer takes slots only when nobody waits.</li>
 *   <li>A higher {@link dev.bulwark.Priority} is served first. When the queue is full, a newcomer evicts the newest
 *       waiter of the lowest priority if that is lower than its own (reason {@code EVICTED}, carrying the evicted
 *       call's priority), and is refused with {@code QUEUE_FULL} otherwise. Reserved headroom per priority is not
 *       supported here.</li>
 *   <li>A weight above the limit this instance last saw is refused at once with {@link IllegalArgumentException}
 *       naming {@code weight} (the async forms fail their future). A limit lowered below a waiter's weight, by any
 *       instance, refuses that waiter with reason {@code WEIGHT_EXCEEDS_LIMIT}, as it does a call that meets such
 *       a lower limit in Redis before this instance saw it.</li>
 * </ul>
 *
 * <p><b>Leased mode</b> ({@link Builder#leased}): everything above describes the exact mode, the default. In the
 * leased mode each instance admits its calls in-process, through an in-process bulkhead whose limit is a block of
 * {@code maxConcurrency} leased from Redis and re-divided by demand on every renewal period; a call never touches
 * Redis, the queue, {@code maxQueue} and {@code maxWait} are each instance's own, weights other than 1 are refused,
 * and the {@link FailureMode} sets the floor an instance falls to when its lease ends unrenewed (docs/cluster.md,
 * "Leased mode", says what differs in full). It opens one connection and closes it once drained. Its refusals
 * report this instance's block as {@code maxConcurrency} and its calls in flight as {@code executingCount}.
 *
 * <p>Each bulkhead opens two connections from the given client (commands, and pub/sub for grant wake-ups) and
 * closes them once it is drained ({@link #drain(Duration)}, {@link #close()}) and its last running call ended; the
 * client itself stays the caller's. Thread-safe.
 */
public final class RedisBulkhead implements Bulkhead, AutoCloseable {

    /** Package-private: the module's tests reach the engine's internals through it. */
    final BulkheadEngine engine;
    private final FailureMode failureMode;
    private final Duration leaseDuration;

    private RedisBulkhead(BulkheadEngine engine, FailureMode failureMode, Duration leaseDuration) {
        this.engine = engine;
        this.failureMode = failureMode;
        this.leaseDuration = leaseDuration;
    }

    /**
     * The longest name a cluster-wide bulkhead may have: the name is in each of its Redis keys, which every script
     * call sends, so a long one costs on every call (a 1 MB name sent about 6 MB per call).
     */
    public static final int MAX_NAME_LENGTH = 200;

    /**
     * Starts configuring a cluster-wide bulkhead on a standalone (or Sentinel-managed) Redis.
     *
     * @param client the client to open connections from; its options must reject commands while disconnected
     *     and must not replay scripts after a reconnect (see {@link #clientOptions()})
     * @param name the bulkhead's name: every instance that uses the same name shares one limit and one queue. It
     *     becomes the hash tag of its keys, so it must not contain '{' or '}'
     * @return a new builder
     * @throws NullPointerException when an argument is {@code null}
     * @throws IllegalArgumentException when the name is blank, contains '{' or '}', or is longer than
     *     {@value #MAX_NAME_LENGTH} characters
     */
    public static Builder builder(RedisClient client, String name) {
        return new Builder(Objects.requireNonNull(client, "client"), null, name);
    }

    /**
     * Starts configuring a cluster-wide bulkhead on Redis Cluster. All keys of one bulkhead share a hash tag, so
     * they live in one slot.
     *
     * @param client the cluster client; its options must be as described in {@link #builder(RedisClient, String)}
     *     (use {@link #clusterClientOptions()})
     * @param name the bulkhead's name; see {@link #builder(RedisClient, String)}
     * @return a new builder
     * @throws NullPointerException when an argument is {@code null}
     * @throws IllegalArgumentException when the name is blank, contains '{' or '}', or is longer than
     *     {@value #MAX_NAME_LENGTH} characters
     */
    public static Builder builder(RedisClusterClient client, String name) {
        return new Builder(null, Objects.requireNonNull(client, "client"), name);
    }

    /**
     * Returns client options fit for a bulkhead: reconnect automatically, reject commands while disconnected, and
     * do not replay {@code EVAL}/{@code EVALSHA} commands that were in flight when the connection dropped (an
     * acquire replayed long after its caller gave up would take a slot for nobody). Derive your own with
     * {@link ClientOptions#mutate()}.
     *
     * @return the options
     */
    public static ClientOptions clientOptions() {
        return ClusterConnections.clientOptions();
    }

    /**
     * Returns cluster client options fit for a bulkhead, as {@link #clientOptions()} does for a standalone client,
     * plus a topology refresh every second and on each of Lettuce's adaptive triggers (at most one per 500 ms), so
     * that after a failover the client finds the promoted replica within about a second (a dead primary answers no
     * {@code MOVED}). Use these rather than {@code ClusterClientOptions.builder(RedisBulkhead.clientOptions())},
     * which (in Lettuce 7.7) does not copy the replay filter; to change them, start from these with
     * {@code mutate()}, which keeps it (checked on Lettuce 7.7), as docs/cluster.md shows.
     *
     * @return the options
     */
    public static ClusterClientOptions clusterClientOptions() {
        return ClusterConnections.clusterClientOptions();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Calls

    /**
     * {@inheritDoc}
     *
     * <p>Makes one round trip to acquire before the operation runs (parking the calling thread meanwhile) and
     * sends the release without waiting for it.
     *
     * @throws dev.bulwark.BulkheadRejectedException also with reason {@code UNAVAILABLE} when Redis cannot decide
     *     and the bulkhead fails closed, and with reason {@code CLOSED} once this instance is closed or draining
     */
    @Override
    public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        return engine.call(operation, signal);
    }

    /**
     * Starts {@code operation} on the builder's executor once a permit is granted (also when one is free at once)
     * and holds the permit until the stage it returns completes. Never blocks: a waiting call is a queue entry, not
     * a thread. Refusal and cancellation complete the returned future exceptionally, on the executor, with
     * {@link dev.bulwark.BulkheadRejectedException} or {@link java.util.concurrent.CancellationException};
     * cancelling the returned future while the call is queued removes it. The operation's own outcome completes the
     * future on the thread that completes the operation's stage; an operation that throws, or returns {@code null},
     * completes it exceptionally and releases the permit.
     *
     * <p>Once this instance is closed or draining the future fails with a
     * {@link dev.bulwark.BulkheadRejectedException} of reason {@code CLOSED}.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        return engine.callAsync(operation, signal);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The permit is held in Redis under a cluster-unique id and its lease is renewed until it is closed. A
     * permit that is never closed and becomes unreachable is released by the next heartbeat tick after the garbage
     * collector finds it, and logged at {@code WARNING} with the bulkhead's name; one still held when this instance
     * closes is ended one lease after the drain's deadline (see {@link #drain(Duration)}).
     *
     * @throws dev.bulwark.BulkheadRejectedException also with reason {@code CLOSED} once this instance is closed or
     *     draining
     */
    @Override
    public Permit acquire(CancellationSignal signal) {
        return engine.acquire(signal);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Makes one round trip (bounded by the command timeout). When Redis cannot decide it returns empty if the
     * bulkhead fails closed, and a permit without a slot if it fails open. Returns empty once closed.
     */
    @Override
    public Optional<Permit> tryAcquire() {
        return engine.tryAcquire();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Once this instance is closed or draining the future fails with a
     * {@link dev.bulwark.BulkheadRejectedException} of reason {@code CLOSED}.
     */
    @Override
    public CompletableFuture<Permit> acquireAsync(CancellationSignal signal) {
        return engine.acquireAsync(signal);
    }

    /**
     * Runs {@code operation} on the calling thread holding {@link CallOptions#weight()} slots of the cluster-wide
     * limit, waiting in the cluster-wide queue at the options' priority if needed (the thread parks), and
     * releasing the slots together, once, when it ends. Otherwise as {@link RedisBulkhead#call}.
     *
     * @param options the weight, priority and cancellation signal
     * @param operation the operation
     * @param <T> the result type
     * @param <X> the operation's checked exception
     * @return the operation's result
     * @throws X the operation's own exception, untouched; the slots are released first
     * @throws IllegalArgumentException when the weight exceeds {@link RedisBulkhead#maxConcurrency()} (message names
     *     {@code weight}); the operation did not run
     * @throws dev.bulwark.BulkheadRejectedException when the queue is full, the maximum wait passed, a higher
     *     priority evicted the call, the limit dropped below its weight, Redis could not decide (failing closed),
     *     or this instance is closed
     * @throws java.util.concurrent.CancellationException when the signal was cancelled or the thread interrupted
     *     while waiting
     * @throws NullPointerException when an argument is {@code null}
     */
    public <T, X extends Throwable> T call(CallOptions options, ThrowingSupplier<? extends T, X> operation)
            throws X {
        return engine.call(options, operation);
    }

    /**
     * Starts {@code operation} on the executor once {@link CallOptions#weight()} slots are granted, and holds them
     * until the stage it returns completes. Never blocks. Otherwise as {@link RedisBulkhead#callAsync}.
     *
     * @param options the weight, priority and cancellation signal
     * @param operation supplies the stage of the asynchronous work
     * @param <T> the result type
     * @return a future completed with the stage's outcome, or exceptionally with the refusal; with
     *     {@link IllegalArgumentException} (naming {@code weight}) when the weight exceeds the limit
     * @throws NullPointerException when an argument is {@code null}
     */
    public <T> CompletableFuture<T> callAsync(CallOptions options,
                                              Supplier<? extends CompletionStage<T>> operation) {
        return engine.callAsync(options, operation);
    }

    /**
     * Takes {@link CallOptions#weight()} slots as one permit whose close gives all of them back, once; waits as
     * {@link #call(CallOptions, ThrowingSupplier)} does.
     *
     * @param options the weight, priority and cancellation signal
     * @return the permit, held in Redis under a cluster-unique id and renewed until it is closed
     * @throws IllegalArgumentException when the weight exceeds {@link RedisBulkhead#maxConcurrency()} (message names
     *     {@code weight})
     * @throws dev.bulwark.BulkheadRejectedException see {@link #call(CallOptions, ThrowingSupplier)}
     * @throws java.util.concurrent.CancellationException when the signal was cancelled or the thread interrupted
     *     while waiting
     * @throws NullPointerException when {@code options} is {@code null}
     */
    public Permit acquireWith(CallOptions options) {
        return engine.acquire(options);
    }

    /**
     * Takes {@link CallOptions#weight()} slots if they are free now and nobody waits anywhere in the cluster; one
     * round trip, never waits, never calls the overflow handler. When Redis cannot decide it returns empty if the
     * bulkhead fails closed and a permit without a slot if it fails open.
     *
     * @param options the weight and priority (a cancelled signal gives empty)
     * @return the permit, or empty when the slots are not free, others wait, or this instance is closed
     * @throws IllegalArgumentException when the weight exceeds {@link RedisBulkhead#maxConcurrency()} (message names
     *     {@code weight})
     * @throws NullPointerException when {@code options} is {@code null}
     */
    public Optional<Permit> tryAcquireWith(CallOptions options) {
        return engine.tryAcquire(options);
    }

    /**
     * Takes {@link CallOptions#weight()} slots without blocking; the future completes on the executor.
     *
     * @param options the weight, priority and cancellation signal
     * @return a future for the permit; failed with {@link IllegalArgumentException} (naming {@code weight}) when
     *     the weight exceeds the limit, or with the refusal
     * @throws NullPointerException when {@code options} is {@code null}
     */
    public CompletableFuture<Permit> acquireAsyncWith(CallOptions options) {
        return engine.acquireAsync(options);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Limits and counts

    /**
     * Attaches a core listener after construction; it is told of this instance's calls (admitted, rejected,
     * cancelled, released), like a listener given to the builder.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    @Override
    public Subscription addListener(BulkheadListener listener) {
        return engine.addListener(listener);
    }

    @Override
    public String name() {
        return engine.name();
    }

    /**
     * Returns the cluster-wide concurrency limit as this instance last saw it (every script reply refreshes it).
     * No round trip.
     *
     * @return at least 1
     */
    @Override
    public int maxConcurrency() {
        return engine.limits().maxConcurrency();
    }

    /**
     * Returns the cluster-wide queue limit as this instance last saw it. No round trip.
     *
     * @return at least 0
     */
    @Override
    public int maxQueue() {
        return engine.limits().maxQueue();
    }

    /**
     * Returns the cluster-wide maximum wait as this instance last saw it. No round trip. A waiter's wait is timed by
     * the clock of the instance it runs on.
     *
     * @return the maximum wait, or empty for no bound
     */
    @Override
    public Optional<Duration> maxWait() {
        ClusterLimits limits = engine.limits();
        return limits.maxWaitNanos() == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(limits.maxWaitNanos()));
    }

    /**
     * Returns how many slots are held across the whole cluster (a permit of weight {@code n} holds {@code n}), after
     * dropping expired leases. Costs one round
     * trip to Redis (a script that also hands freed slots to waiters), so it is not meant for a hot path; see
     * {@link #localExecutingCount()} for the free local figure.
     *
     * @return the cluster-wide number of slots held
     * @throws RedisBulkheadException when Redis does not answer within the command timeout or answers with an
     *     error, or once this instance has shut down after {@link #close()} or {@link #drain} (its connections are
     *     closed)
     */
    @Override
    public int executingCount() {
        return engine.clusterCounts("executingCount")[0];
    }

    /**
     * Returns how many calls wait across the whole cluster. Costs one round trip, like {@link #executingCount()}.
     *
     * @return the cluster-wide number of waiting calls
     * @throws RedisBulkheadException when Redis does not answer within the command timeout or answers with an
     *     error, or once this instance has shut down after {@link #close()} or {@link #drain} (its connections are
     *     closed)
     */
    @Override
    public int queuedCount() {
        return engine.clusterCounts("queuedCount")[1];
    }

    /**
     * Returns how many slots the permits this instance holds in Redis take (not yet closed, not lost). No round
     * trip.
     *
     * @return this instance's share of {@link #executingCount()}
     */
    public int localExecutingCount() {
        return engine.localExecutingCount();
    }

    /**
     * Returns how many of this instance's calls wait in the cluster-wide queue (or are joining it). No round trip.
     *
     * @return this instance's share of {@link #queuedCount()}
     */
    public int localQueuedCount() {
        return engine.localQueuedCount();
    }

    /**
     * Changes the concurrency limit for the whole cluster: one round trip, bounded by the command timeout. Raising
     * it grants waiters at once, in arrival order; lowering it lets running calls finish and admits nobody until
     * fewer than the new limit hold permits.
     *
     * @throws IllegalArgumentException when {@code maxConcurrency} is less than 1
     * @throws RedisBulkheadException when Redis does not answer within the command timeout (the change may or may
     *     not have been made) or answers with an error, or once this instance has shut down (made no change)
     */
    @Override
    public void changeMaxConcurrency(int maxConcurrency) {
        engine.configure("changeMaxConcurrency", "maxConcurrency",
                Integer.toString(Arguments.requireMaxConcurrency(maxConcurrency)));
    }

    /**
     * Changes the queue limit for the whole cluster: one round trip. Never drops a queued call.
     *
     * @throws IllegalArgumentException when {@code maxQueue} is negative
     * @throws RedisBulkheadException when Redis does not answer within the command timeout or answers with an
     *     error, or once this instance has shut down after {@link #close()} or {@link #drain} (its connections are
     *     closed)
     */
    @Override
    public void changeMaxQueue(int maxQueue) {
        engine.configure("changeMaxQueue", "maxQueue", Integer.toString(Arguments.requireMaxQueue(maxQueue)));
    }

    /**
     * Changes the maximum wait for the whole cluster: one round trip. Calls already queued keep theirs; calls that
     * join afterwards, on any instance, use the new one.
     *
     * @throws IllegalArgumentException when {@code maxWait} is zero or negative
     * @throws RedisBulkheadException when Redis does not answer within the command timeout or answers with an
     *     error, or once this instance has shut down after {@link #close()} or {@link #drain} (its connections are
     *     closed)
     */
    @Override
    public void changeMaxWait(Duration maxWait) {
        engine.configure("changeMaxWait", "maxWaitNanos",
                Long.toString(maxWait == null ? 0L
                        : Arguments.boundedNanos(Arguments.requirePositive(maxWait, "maxWait"))));
    }

    /**
     * Returns what this bulkhead does when Redis cannot decide.
     *
     * @return the failure mode
     */
    public FailureMode failureMode() {
        return failureMode;
    }

    /**
     * Returns how long a permit or a waiter stays valid in Redis without renewal; in the leased mode, how long an
     * instance's block does (three renewal periods).
     *
     * @return the lease duration
     */
    public Duration leaseDuration() {
        return leaseDuration;
    }

    /**
     * Drains this instance of the cluster-wide bulkhead: it stops admitting (a new call is refused with a
     * {@link dev.bulwark.BulkheadRejectedException} of reason {@link Rejection.Reason#CLOSED}, through the overflow
     * handler; {@link #tryAcquire()} returns empty), refuses each of its queued waiters the same way (they never run,
     * and their places leave the Redis queue, so the next waiter of another instance moves up), then waits up to
     * {@code deadline} for its running calls to close their permits, which release their slots to the cluster as
     * usual, each exactly once. The other instances of the bulkhead are not affected.
     *
     * <p>Once nothing of this instance runs any more, it shuts down: the heartbeat stops and both connections close
     * (after pending releases had up to one command timeout to reach Redis). Calls still running at the deadline
     * keep their leases renewed and their connections open until the last of them ends, but for at most one lease
     * duration past the latest drain's deadline: then each permit still held is released in Redis and reported to
     * {@link RedisBulkheadListener#permitLost} with cause {@link LostPermit.Cause#BULKHEAD_CLOSED}, and the
     * instance shuts down, so that no permit outlives its bulkhead (the calls keep running; a bulkhead never
     * interrupts them).
     *
     * <p>Idempotent and thread-safe: a later drain refuses nothing more and waits again for what still runs.
     * It does not wait for running calls past the deadline ({@link Duration#ZERO} does not wait for them); once
     * nothing of this instance runs, the shutdown may run on this thread and then waits up to one more command
     * timeout for Redis to confirm the last releases. On interrupt it returns early with the thread's interrupt
     * flag set.
     *
     * @param deadline how long to wait for running calls, zero or positive
     * @return the waiters this call refused, this instance's calls still running when it returned (permits held
     *     in Redis, permits already lost but not closed, calls run without a permit), and the time waited for them:
     *     real time ({@link System#nanoTime()}, whatever the ticker), from after the refusals, at most the deadline
     * @throws NullPointerException when {@code deadline} is {@code null}
     * @throws IllegalArgumentException when {@code deadline} is negative (the message names {@code deadline})
     */
    @Override
    public DrainResult drain(Duration deadline) {
        Objects.requireNonNull(deadline, "deadline");
        if (deadline.isNegative()) {
            throw new IllegalArgumentException("deadline must not be negative but was " + deadline);
        }
        return engine.drain(Arguments.boundedNanos(deadline));
    }

    /**
     * Closes this instance without waiting for its running calls: {@code drain(Duration.ZERO)}, which may still wait
     * up to one command timeout for the last releases to reach Redis when nothing runs. Idempotent, thread-safe.
     */
    @Override
    public void close() {
        engine.close();
    }

    /**
     * Returns whether {@link #close()} or {@link #drain(Duration)} was called on this instance. A volatile read.
     *
     * @return {@code true} once closed; never goes back to {@code false}
     */
    @Override
    public boolean isClosed() {
        return engine.isClosed();
    }

    @Override
    public String toString() {
        return engine.toString();
    }

    /**
     * Configures a {@link RedisBulkhead}. Not thread-safe: configure on one thread, then {@link #build()}. Each
     * setter checks its argument at once and names it in the exception.
     */
    public static final class Builder {

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
        public Builder maxConcurrency(int maxConcurrency) {
            this.maxConcurrency = Arguments.requireMaxConcurrency(maxConcurrency);
            return this;
        }

        /**
         * Sets the cluster-wide queue limit used when Redis holds none yet. Default: 0 (refuse at once when no
         * permit is free).
         *
         * @param maxQueue at least 0
         * @return this builder
         * @throws IllegalArgumentException when {@code maxQueue} is negative
         */
        public Builder maxQueue(int maxQueue) {
            this.maxQueue = Arguments.requireMaxQueue(maxQueue);
            return this;
        }

        /**
         * Sets the cluster-wide maximum wait used when Redis holds none yet. Default: no bound.
         *
         * @param maxWait a positive duration
         * @return this builder
         * @throws NullPointerException when {@code maxWait} is {@code null}
         * @throws IllegalArgumentException when {@code maxWait} is zero or negative
         */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = Arguments.requirePositive(Objects.requireNonNull(maxWait, "maxWait"), "maxWait");
            return this;
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
        public Builder onRejected(Consumer<? super Rejection> handler) {
            this.rejectionHandler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Adds a core listener (admitted, rejected, cancelled, released), called for this instance's calls.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException when {@code listener} is {@code null}
         */
        public Builder listener(BulkheadListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Adds a listener for lost permits and calls run without a permit.
         *
         * @param listener the listener
         * @return this builder
         * @throws NullPointerException when {@code listener} is {@code null}
         */
        public Builder redisListener(RedisBulkheadListener listener) {
            redisListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
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
        public Builder leaseDuration(Duration leaseDuration) {
            Objects.requireNonNull(leaseDuration, "leaseDuration");
            if (leaseDuration.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("leaseDuration must be at least 1 ms but was " + leaseDuration);
            }
            this.leaseDuration = leaseDuration;
            return this;
        }

        /**
         * Sets how long a permit may be held: a permit held longer is ended by this instance at its next heartbeat tick
         * (released in Redis, so the slot goes to the next caller) and its holder is told through {@link
         * RedisBulkheadListener#permitLost} with cause {@link LostPermit.Cause#HELD_TOO_LONG}. The call itself keeps
         * running: a bulkhead never interrupts an operation, so pick a bound that no healthy call reaches. Default:
         * none (a permit is renewed until it is closed, collected unclosed, or its instance closes).
         *
         * @param maxHoldTime a positive duration
         * @return this builder
         * @throws NullPointerException when {@code maxHoldTime} is {@code null}
         * @throws IllegalArgumentException when it is zero or negative
         */
        public Builder maxHoldTime(Duration maxHoldTime) {
            this.maxHoldTime = Arguments.requirePositive(
                    Objects.requireNonNull(maxHoldTime, "maxHoldTime"), "maxHoldTime");
            return this;
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
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = Arguments.requirePositive(
                    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval"), "heartbeatInterval");
            return this;
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
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Arguments.requirePositive(
                    Objects.requireNonNull(pollInterval, "pollInterval"), "pollInterval");
            return this;
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
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = Arguments.requirePositive(
                    Objects.requireNonNull(commandTimeout, "commandTimeout"), "commandTimeout");
            return this;
        }

        /**
         * Sets what to do when Redis cannot decide. Default: {@link FailureMode#FAIL_CLOSED}.
         *
         * @param failureMode the failure mode
         * @return this builder
         * @throws NullPointerException when {@code failureMode} is {@code null}
         */
        public Builder failureMode(FailureMode failureMode) {
            this.failureMode = Objects.requireNonNull(failureMode, "failureMode");
            return this;
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
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Sets the scheduler for maximum waits, command timeouts, heartbeats and polls. Default:
         * {@link Scheduler#shared()}.
         *
         * @param scheduler the scheduler
         * @return this builder
         * @throws NullPointerException when {@code scheduler} is {@code null}
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
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
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Makes the cluster-wide concurrency limit adaptive. Every instance runs the algorithm on its own calls (their
         * latency from grant to close, and their outcomes by the limit's drop predicate, sampled and windowed exactly
         * as in {@link dev.bulwark.Bulkhead.Builder#adaptive the in-process bulkhead}) and applies each decision to the
         * limit all instances share as a compare-and-set in Redis: "set it to {@code next} only if it still is {@code
         * expected}", sent without waiting, so the caller's call never waits for it and at most one decision per
         * observed limit wins across the fleet. With {@link dev.bulwark.SelfTuningLimit}, whose first measurement and
         * periodic probes pin the limit low, one instance decides at a time: the first applied decision claims the
         * limit for 30 seconds, renewed by each further one, and the other instances' decisions lose meanwhile (a
         * decider that stops is replaced once its claim runs out). Calls run without a permit ({@link
         * FailureMode#FAIL_OPEN}) and lost permits are not sampled, and nothing is written while Redis does not answer.
         * {@link #maxConcurrency(int)} initializes the limit when Redis holds none yet and must lie within the adaptive
         * range. Default: none (the limit changes only through {@link RedisBulkhead#changeMaxConcurrency}).
         *
         * @param limit the algorithm and its bounds
         * @return this builder
         * @throws NullPointerException when {@code limit} is {@code null}
         */
        public Builder adaptive(AdaptiveLimit limit) {
            this.adaptiveLimit = Objects.requireNonNull(limit, "limit");
            return this;
        }

        /**
         * Selects the leased mode: instead of asking Redis at every admission (the exact mode, the default), each
         * instance leases a block of the fleet's limit and admits its calls in-process within it, through the
         * in-process bulkhead (its queue of {@link #maxQueue} places, {@link #maxWait}, priorities and cancellation,
         * all per instance); a call never touches Redis. Every {@code renewalPeriod} (jittered by &plusmn;25%) the
         * instance reports its demand (executing plus queued) and Redis re-divides {@link #maxConcurrency} max-min
         * fairly by demand; a block's lease lasts three periods, after which a silent instance's block returns to the
         * others and the instance itself falls to the floor of its {@link #failureMode} (see docs/cluster.md, "Leased
         * mode"). A renewal the client refuses without sending it (disconnected, or on Redis Cluster still connecting
         * to the node serving the slot) is followed by the next after a tenth of a period; {@link #build()} sends the
         * first again, 10 ms apart, until {@link #commandTimeout} has passed. Not combinable with {@link #adaptive};
         * weights other than 1 are refused.
         *
         * @param renewalPeriod how often each instance renews its lease, at least one millisecond
         * @return this builder
         * @throws NullPointerException when {@code renewalPeriod} is {@code null}
         * @throws IllegalArgumentException when it is shorter than one millisecond
         */
        public Builder leased(Duration renewalPeriod) {
            Objects.requireNonNull(renewalPeriod, "renewalPeriod");
            if (renewalPeriod.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("renewalPeriod must be at least 1 ms but was " + renewalPeriod);
            }
            this.renewalPeriod = renewalPeriod;
            return this;
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
        final Builder releaseFlusher(Executor flusher) {
            this.releaseFlusher = Objects.requireNonNull(flusher, "flusher");
            return this;
        }


        private final RedisClient client;
        private final RedisClusterClient clusterClient;
        private final String name;

        private Builder(RedisClient client, RedisClusterClient clusterClient, String name) {
            Objects.requireNonNull(name, "name");
            if (name.length() > MAX_NAME_LENGTH) {
                // Checked first, and not echoed: the name is in every key of every script call.
                throw new IllegalArgumentException("name must be at most " + MAX_NAME_LENGTH
                        + " characters but was " + name.length() + " characters long");
            }
            if (name.isBlank() || name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
                throw new IllegalArgumentException(
                        "name must be non-blank and contain neither '{' nor '}' but was '" + name + "'");
            }
            this.client = client;
            this.clusterClient = clusterClient;
            this.name = name;
        }

        /**
         * Connects and starts the bulkhead: opens a command connection and a pub/sub connection, subscribes to
         * grant wake-ups, loads the scripts and reads the cluster-wide limits (writing this builder's values when
         * Redis holds none).
         *
         * @return a new bulkhead
         * @throws IllegalArgumentException when the heartbeat interval or the command timeout is not shorter than
         *     the lease, the client's options would queue or replay commands (see {@link #clientOptions()}), or
         *     {@code maxConcurrency} lies outside the adaptive limit's range
         * @throws RedisBulkheadException when Redis cannot be reached
         */
        public RedisBulkhead build() {
            ClusterSettings settings = settings(name);
            Duration renewalPeriod = renewalPeriod();
            if (renewalPeriod != null) {
                return new RedisBulkhead(startLeased(settings, renewalPeriod), settings.failureMode(),
                        renewalPeriod.multipliedBy(3));
            }
            BulkheadEngine engine = client != null ? ClusterConnections.start(settings, client)
                    : ClusterConnections.start(settings, clusterClient);
            return new RedisBulkhead(engine, settings.failureMode(), settings.lease());
        }

        /** The leased mode needs one command connection, no pub/sub: its calls never wait on Redis. */
        private LeasedBulkhead startLeased(ClusterSettings settings, Duration renewalPeriod) {
            ClusterConnections.checkOptions(client != null ? client.getOptions() : clusterClient.getOptions());
            try {
                if (client != null) {
                    StatefulRedisConnection<String, String> connection = client.connect();
                    return LeasedBulkhead.start(settings, renewalPeriod, connection.async(), connection::close);
                }
                StatefulRedisClusterConnection<String, String> connection = clusterClient.connect();
                return LeasedBulkhead.start(settings, renewalPeriod, connection.async(), connection::close);
            } catch (RuntimeException failure) {
                throw failure instanceof RedisBulkheadException ? failure
                        : new RedisBulkheadException(name, "connect", failure);
            }
        }
    }
}
