package dev.bulwark.reactor.internal;

import dev.bulwark.internal.util.VarHandles;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * One subscription to the source on behalf of a {@link PolicySubscription}. Its {@link #done} stage is what the
 * policy waits on: it completes when the source completes or fails, or exceptionally with a
 * {@link CancellationException} when the attempt is abandoned (so a retry never retries it and a bulkhead frees its
 * slot). Items are passed on only while this attempt is the current, unabandoned one.
 *
 * @param <T> the element type
 */
final class Attempt<T> implements CoreSubscriber<T> {

    private static final VarHandle UPSTREAM =
            VarHandles.field(MethodHandles.lookup(), "upstream", Subscription.class);
    private static final Subscription ABANDONED = new Subscription() {
        @Override
        public void request(long n) {
        }

        @Override
        public void cancel() {
        }
    };

    /** What the policy waits on; ending it from outside (a timeout cancels it) stops the source first. */
    final CompletableFuture<Void> done = new Stage(this);
    private final PolicySubscription<T> parent;
    /** {@code null} until subscribed; {@link #ABANDONED} once abandoned (a late subscription is cancelled at once). */
    private volatile Subscription upstream;
    private volatile boolean abandoned;
    /** Whether the source itself completed or failed. */
    private volatile boolean sourceTerminated;

    Attempt(PolicySubscription<T> parent) {
        this.parent = parent;
    }

    @Override
    public Context currentContext() {
        return parent.actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription subscription) {
        if (UPSTREAM.compareAndSet(this, null, subscription)) {
            parent.switchTo(subscription);
        } else {
            subscription.cancel();
        }
    }

    @Override
    public void onNext(T item) {
        parent.beginEmission();
        try {
            // Invariant: stop() writes `abandoned` before the next subscription is switched to, and the switch
            // waits while an emission is in progress; this emission is counted before it reads `abandoned`. So
            // either the item is dropped here, or it is delivered and counted before the switch.
            if (abandoned || !parent.isCurrent(this)) {
                Operators.onDiscard(item, currentContext());
                return;
            }
            parent.produced();
            parent.actual.onNext(item);
        } finally {
            parent.endEmission();
        }
    }

    @Override
    public void onError(Throwable failure) {
        sourceTerminated = true;
        if (!done.isDone()) {
            parent.sourceFailed(failure);
        }
        if (!done.completeExceptionally(failure)) {
            Operators.onErrorDropped(failure, currentContext());
        }
    }

    @Override
    public void onComplete() {
        sourceTerminated = true;
        done.complete(null);
    }

    /**
     * Stops this attempt if it is still running: cancels its subscription and ends its stage with a
     * {@link CancellationException}, which frees what the policy holds for it. Idempotent.
     */
    void abandon() {
        stop();
        done.completeExceptionally(new CancellationException("The subscription to the source was abandoned: the "
                + "subscriber cancelled, or the policy gave up on this attempt"));
    }

    /**
     * The attempt's stage. A policy may end it itself (a timeout cancels the stage of the attempt it gave up on):
     * the source is then cancelled before the stage completes, so that what waits on the stage (a bulkhead releasing
     * its slot) runs only once the source has been told to stop.
     */
    private static final class Stage extends CompletableFuture<Void> {
        private final Attempt<?> attempt;

        Stage(Attempt<?> attempt) {
            this.attempt = attempt;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (!isDone() && !attempt.sourceTerminated) {
                attempt.stop();
            }
            return super.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean completeExceptionally(Throwable failure) {
            if (!isDone() && !attempt.sourceTerminated) {
                attempt.stop();
            }
            return super.completeExceptionally(failure);
        }
    }

    private void stop() {
        abandoned = true;
        Subscription subscription = (Subscription) UPSTREAM.getAndSet(this, ABANDONED);
        if (subscription != null && subscription != ABANDONED && !sourceTerminated) {
            subscription.cancel();
        }
    }
}
