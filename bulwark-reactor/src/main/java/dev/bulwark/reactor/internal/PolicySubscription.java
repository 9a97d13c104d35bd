package dev.bulwark.reactor.internal;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Policy;
import dev.bulwark.internal.util.Stages;
import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

/**
 * One subscriber's trip through a policy: the policy decides when (and how often) the source is subscribed, each
 * subscription being one {@link Attempt} whose stage completes when that subscription terminates. The policy never
 * blocks: a call waiting for a bulkhead slot or for a retry delay is a queue entry or a timer task, not a thread.
 *
 * <p>Slots are released exactly once, by the policy itself, when an attempt's stage completes: on the source's
 * completion or error, on the subscriber's cancellation (the attempt is abandoned), or when the policy gives up on a
 * running attempt (a timeout). Cancelling while queued cancels the {@link CancellationSignal}, which removes the
 * waiter.
 *
 * <p><b>Demand.</b> The subscriber's demand is carried over from one attempt's subscription to the next. Invariant:
 * {@link #requested} and {@link #upstream} are read and written only by the thread that raised {@link #wip} from 0
 * (the drain loop); other threads hand over their requests, deliveries and new subscriptions through the
 * {@code missed*} fields and raise {@link #wip}, so that the loop runs again. {@link #requested} is the demand not
 * yet met ({@link Long#MAX_VALUE}: unbounded). A new subscription is only switched to when no abandoned attempt is
 * in the middle of delivering an item ({@link #emitting} is 0): an item already past its check is counted before
 * the next subscription is asked for the remaining demand, so the subscriber never gets more than it requested.
 *
 * @param <T> the element type
 */
final class PolicySubscription<T> implements Subscription {

    private static final VarHandle WIP = VarHandles.field(MethodHandles.lookup(), "wip", int.class);
    private static final VarHandle MISSED_REQUESTED =
            VarHandles.field(MethodHandles.lookup(), "missedRequested", long.class);
    private static final VarHandle MISSED_PRODUCED =
            VarHandles.field(MethodHandles.lookup(), "missedProduced", long.class);
    private static final VarHandle MISSED_SUBSCRIPTION =
            VarHandles.field(MethodHandles.lookup(), "missedSubscription", Subscription.class);
    private static final VarHandle EMITTING = VarHandles.field(MethodHandles.lookup(), "emitting", int.class);
    private static final VarHandle CURRENT = VarHandles.field(MethodHandles.lookup(), "current", Attempt.class);
    private static final VarHandle TERMINATED = VarHandles.field(MethodHandles.lookup(), "terminated", int.class);

    final CoreSubscriber<? super T> actual;
    private final Publisher<? extends T> source;
    private final Policy policy;
    private final CancellationSignal signal = CancellationSignal.create();

    private volatile int wip;
    private volatile long missedRequested;
    private volatile long missedProduced;
    private volatile Subscription missedSubscription;
    /** How many items are being delivered right now (by the current attempt or an abandoned one). */
    private volatile int emitting;
    private long requested;
    private Subscription upstream;

    private volatile Attempt<T> current;
    /** The last failure a source emitted, so that a {@link CompletionException} of its own is not unwrapped. */
    private volatile Throwable sourceFailure;
    private volatile boolean cancelled;
    private volatile int terminated;

    PolicySubscription(CoreSubscriber<? super T> actual, Publisher<? extends T> source, Policy policy) {
        // Serialized: a policy may end the sequence (a timeout, say) on another thread while an item is delivered.
        this.actual = Operators.serialize(actual);
        this.source = source;
        this.policy = policy;
    }

    /** Hands the subscriber its subscription, then asks the policy to run. */
    void start() {
        actual.onSubscribe(this);
        if (cancelled) {
            return;
        }
        CompletableFuture<Void> outcome;
        try {
            outcome = policy.callAsync(this::attempt, signal);
        } catch (RuntimeException | Error failure) {
            finish(failure);
            return;
        }
        outcome.whenComplete((ignored, failure) -> finish(failure));
    }

    /** Called by the policy for each attempt: subscribes to the source anew. */
    private CompletionStage<Void> attempt() {
        Attempt<T> attempt = new Attempt<>(this);
        @SuppressWarnings("unchecked")
        Attempt<T> previous = (Attempt<T>) CURRENT.getAndSet(this, attempt);
        if (previous != null) {
            // The policy moved on (a retry after a timeout): the earlier subscription is abandoned, its slot freed.
            previous.abandon();
        }
        // Invariant: cancel() writes `cancelled` before reading `current`, and this method writes `current` before
        // reading `cancelled`, so a cancellation racing with a new attempt abandons it on one side or the other.
        if (cancelled || terminated != 0) {
            attempt.abandon();
            return attempt.done;
        }
        try {
            source.subscribe(attempt);
        } catch (RuntimeException | Error failure) {
            attempt.onError(failure);
        }
        return attempt.done;
    }

    boolean isCurrent(Attempt<T> attempt) {
        return current == attempt;
    }

    /** Ends the sequence once: the policy's outcome is known. */
    private void finish(Throwable failure) {
        if (!TERMINATED.compareAndSet(this, 0, 1)) {
            return;
        }
        Attempt<T> last = current;
        if (last != null) {
            // Does nothing for an attempt that ended; stops one the policy gave up on, freeing what it held.
            last.abandon();
        }
        if (cancelled) {
            return;
        }
        if (failure == null) {
            actual.onComplete();
        } else {
            actual.onError(unwrap(failure));
        }
    }

    /** An attempt's source failed with {@code failure}. */
    void sourceFailed(Throwable failure) {
        sourceFailure = failure;
    }

    /**
     * Takes off a {@link CompletionException} that a stage wrapped around the failure (the core's policies unwrap one
     * too), except when the source itself emitted that {@code CompletionException}: its errors pass through untouched.
     */
    private Throwable unwrap(Throwable failure) {
        Throwable cause = Stages.unwrap(failure);
        Throwable own = sourceFailure;
        if (own instanceof CompletionException && (own == failure || own.getCause() == cause)) {
            return own;
        }
        return cause;
    }

    @Override
    public void request(long n) {
        if (!Operators.validate(n)) {
            return;
        }
        long current;
        long next;
        do {
            current = missedRequested;
            next = Operators.addCap(current, n);
        } while (!MISSED_REQUESTED.compareAndSet(this, current, next));
        drain();
    }

    @Override
    public void cancel() {
        if (cancelled) {
            return;
        }
        cancelled = true;
        // A call still queued in a bulkhead leaves the queue; a retry delay ends.
        signal.cancel();
        Attempt<T> running = current;
        if (running != null) {
            running.abandon();
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Called by attempts

    /** An attempt got its subscription: the demand not yet met moves to it. */
    void switchTo(Subscription subscription) {
        MISSED_SUBSCRIPTION.setVolatile(this, subscription);
        drain();
    }

    /** Marks the start of an item's delivery; the caller then checks whether its attempt is still current. */
    void beginEmission() {
        EMITTING.getAndAdd(this, 1);
    }

    /** Marks the end of an item's delivery; runs a subscription switch that waited for it. */
    void endEmission() {
        if ((int) EMITTING.getAndAdd(this, -1) == 1 && missedSubscription != null) {
            drain();
        }
    }

    /** One item was delivered. */
    void produced() {
        if (WIP.compareAndSet(this, 0, 1)) {
            long r = requested;
            if (r != Long.MAX_VALUE && r > 0) {
                requested = r - 1;
            }
            if ((int) WIP.getAndAdd(this, -1) == 1) {
                return;
            }
            drainLoop();
            return;
        }
        MISSED_PRODUCED.getAndAdd(this, 1L);
        drain();
    }

    private void drain() {
        if ((int) WIP.getAndAdd(this, 1) != 0) {
            return;
        }
        drainLoop();
    }

    private void drainLoop() {
        int missed = 1;
        for (;;) {
            long missedRequests = (long) MISSED_REQUESTED.getAndSet(this, 0L);
            long missedItems = (long) MISSED_PRODUCED.getAndSet(this, 0L);
            long r = requested;
            if (r != Long.MAX_VALUE) {
                r = Operators.addCap(r, missedRequests);
                if (r != Long.MAX_VALUE) {
                    r = Math.max(0L, r - missedItems);
                }
                requested = r;
            }
            Subscription next = missedSubscription;
            if (next != null && emitting == 0) {
                MISSED_SUBSCRIPTION.compareAndSet(this, next, null);
                upstream = next;
                if (r != 0L) {
                    next.request(r);
                }
            } else if (next == null && missedRequests != 0L && upstream != null) {
                upstream.request(missedRequests);
            }
            missed = (int) WIP.getAndAdd(this, -missed) - missed;
            if (missed == 0) {
                return;
            }
        }
    }
}
