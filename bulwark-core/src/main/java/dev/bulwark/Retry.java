package dev.bulwark;

import dev.bulwark.internal.RetryStep;
import dev.bulwark.internal.util.Arguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A policy that runs an operation again when it fails with a failure it handles, up to a number of retries, with
 * a fixed or exponentially growing delay between attempts, randomized by a fraction or an absolute jitter.
 *
 * <p>Rules:
 * <ul>
 *   <li>Without {@link Builder#handle} or {@link Builder#handleIf} every {@link Exception} is handled (never an
 *       {@link Error}) except an {@link InterruptedException}: the thread was asked to stop, so it is rethrown at
 *       once, untouched, and no attempt follows. With them, a failure is handled when it is an instance of a
 *       listed type or matches a predicate (listing {@code InterruptedException} retries it).</li>
 *   <li>A {@link java.util.concurrent.CancellationException}, and any failure after the call's
 *       {@link CancellationSignal} was cancelled, is never retried.</li>
 *   <li>A {@link BulkheadRejectedException} whose {@linkplain BulkheadRejectedException#rejection() reason} is
 *       {@link Rejection.Reason#CLOSED} is not retried, whatever {@link Builder#handle}, {@link Builder#handleIf}
 *       or the default select: a closed or draining bulkhead never admits again, so another attempt would only
 *       wait out the delay before failing the same way. It is rethrown at once, untouched, like a failure the retry
 *       does not handle. {@link Builder#retryClosedBulkheads(boolean) retryClosedBulkheads(true)} retries it like
 *       any other failure selected. Every other reason of refusal is retried when selected.</li>
 *   <li>When no retry is left, the last failure is rethrown untouched (same instance, checked type kept); a
 *       failure it does not handle is rethrown at once.</li>
 *   <li>A synchronous delay parks the caller's thread and ends at once when the signal is cancelled
 *       ({@link java.util.concurrent.CancellationException}) or the thread is interrupted (the retry stops, the
 *       interrupt status is kept, and a {@link java.util.concurrent.CancellationException} caused by an
 *       {@link InterruptedException} is thrown). An asynchronous delay holds no thread: the next attempt is
 *       scheduled on the {@link Scheduler} and starts on a thread of
 *       {@link java.util.concurrent.ForkJoinPool#commonPool()} with {@link Scheduler#shared()} (never on its timer
 *       thread), on the scheduler's thread with any other. Cancelling the signal during the delay completes the
 *       returned future with a {@link java.util.concurrent.CancellationException}. Cancelling the returned future
 *       stops further attempts and cancels the attempt in flight (its stage, where it is a future: an inner
 *       bulkhead's waiter leaves the queue and never runs).</li>
 *   <li>In a {@link Pipeline}, each attempt runs the policies inside the retry again: {@code Pipeline.of(retry,
 *       bulkhead)} asks the bulkhead for a slot on every attempt.</li>
 * </ul>
 *
 * <p>Thread-safe and stateless between calls; share one instance. A call that succeeds on its first attempt
 * allocates nothing.
 */
// The step type is internal on purpose: it is implementation, named here only to type the shared base.
@SuppressWarnings("exports")
public final class Retry extends SingleStepPolicy<RetryStep> {

    private Retry(RetryStep step) {
        super(step);
    }

    /**
     * Starts configuring a retry. Defaults: 3 retries (4 attempts), no delay, every {@link Exception} handled but a
     * bulkhead's refusal for {@link Rejection.Reason#CLOSED}.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the retry's name, used in events and metrics.
     *
     * @return the name
     */
    public String name() {
        return step.name();
    }

    /**
     * Returns the maximum number of retries after the first attempt.
     *
     * @return at least 0
     */
    public int maxRetries() {
        return step.maxRetries();
    }

    /**
     * Attaches a listener after construction (metrics bind this way). A listener attached while calls are in
     * flight sees only their later events.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public Subscription addListener(RetryListener listener) {
        return step.addListener(listener);
    }

    /**
     * Configures a {@link Retry}. Not thread-safe. Each setter checks its argument at once and names it in the
     * exception.
     */
    public static final class Builder extends PolicyBuilder<Builder, RetryListener> {
        private final List<Class<? extends Throwable>> handledTypes = new ArrayList<>();
        private final List<Predicate<? super Throwable>> handledIf = new ArrayList<>();
        private int maxRetries = 3;
        private @Nullable Duration delay;
        private @Nullable Duration backoffInitial;
        private @Nullable Duration backoffMax;
        private double multiplier = 2.0;
        private double jitter;
        private @Nullable Duration jitterSpread;
        private boolean retryClosedBulkheads;

        private Builder() {
            super("retry");
        }

        /**
         * Handles failures that are instances of any of these types (in addition to any {@link #handleIf}). A
         * {@link BulkheadRejectedException} for {@link Rejection.Reason#CLOSED} stays unhandled unless
         * {@link #retryClosedBulkheads(boolean) retryClosedBulkheads(true)}.
         *
         * @param types failure types to retry
         * @return this builder
         * @throws NullPointerException when {@code types} or one of them is {@code null}
         * @throws IllegalArgumentException when no type is given
         */
        @SafeVarargs
        public final Builder handle(Class<? extends Throwable>... types) {
            Objects.requireNonNull(types, "types");
            if (types.length == 0) {
                throw new IllegalArgumentException("types must name at least one failure type");
            }
            for (int i = 0; i < types.length; i++) {
                handledTypes.add(Objects.requireNonNull(types[i], "types[" + i + "]"));
            }
            return this;
        }

        /**
         * Handles failures that match this predicate (in addition to any {@link #handle} types). A predicate that
         * throws (an {@link Error} included) counts as not matching, on the synchronous and the asynchronous path
         * alike; its failure is logged. A {@link BulkheadRejectedException} for {@link Rejection.Reason#CLOSED}
         * never reaches the predicate and stays unhandled unless {@link #retryClosedBulkheads(boolean)
         * retryClosedBulkheads(true)}.
         *
         * @param predicate decides whether a failure is retried
         * @return this builder
         * @throws NullPointerException when {@code predicate} is {@code null}
         */
        public Builder handleIf(Predicate<? super Throwable> predicate) {
            handledIf.add(Objects.requireNonNull(predicate, "predicate"));
            return this;
        }

        /**
         * Sets whether a {@link BulkheadRejectedException} whose reason is {@link Rejection.Reason#CLOSED} may be
         * retried. Default: {@code false}: such a refusal is rethrown at once, without waiting a delay, because a
         * closed or draining bulkhead ({@link Bulkhead#close()}, {@link Bulkhead#drain(Duration)}) never admits
         * again. With {@code true} it is retried when {@link #handle}, {@link #handleIf} or the default select it,
         * like any other failure: for an attempt that may reach another bulkhead, say one that replaced a closed
         * one. The refusals for the other reasons are retried when selected either way. Like every setter, not
         * thread-safe; the retry it builds is. Never throws.
         *
         * @param retry whether to retry a refusal for {@code CLOSED}
         * @return this builder
         */
        public Builder retryClosedBulkheads(boolean retry) {
            this.retryClosedBulkheads = retry;
            return this;
        }

        /**
         * Sets how many times a failed call is retried. Default: 3 (up to 4 attempts).
         *
         * @param maxRetries at least 0
         * @return this builder
         * @throws IllegalArgumentException when {@code maxRetries} is negative
         */
        public Builder maxRetries(int maxRetries) {
            if (maxRetries < 0) {
                throw new IllegalArgumentException("maxRetries must not be negative but was " + maxRetries);
            }
            this.maxRetries = maxRetries;
            return this;
        }

        /**
         * Waits a fixed time between attempts. Exclusive with {@link #backoff}. Default: no delay.
         *
         * @param delay a positive duration
         * @return this builder
         * @throws NullPointerException when {@code delay} is {@code null}
         * @throws IllegalArgumentException when {@code delay} is zero or negative, or a backoff is set
         */
        public Builder delay(Duration delay) {
            Arguments.requirePositive(Objects.requireNonNull(delay, "delay"), "delay");
            if (backoffInitial != null) {
                throw new IllegalArgumentException("delay and backoff cannot both be set: backoff is " + backoffInitial
                        + ".." + backoffMax);
            }
            this.delay = delay;
            return this;
        }

        /**
         * Waits exponentially longer between attempts: {@code initial}, then twice as long after each failure, never
         * longer than {@code max}, jitter included: {@code max} bounds each delay after {@link #jitter} randomized
         * it, so it is a true upper bound. Exclusive with {@link #delay}. The same as
         * {@link #backoff(Duration, double, Duration) backoff(initial, 2.0, max)}.
         *
         * @param initial the first delay, positive
         * @param max the longest delay, at least {@code initial}
         * @return this builder
         * @throws NullPointerException when an argument is {@code null}
         * @throws IllegalArgumentException when a duration is zero or negative, {@code max} is less than
         *     {@code initial}, or a fixed delay is set
         */
        public Builder backoff(Duration initial, Duration max) {
            Arguments.requirePositive(Objects.requireNonNull(initial, "initial"), "initial");
            Arguments.requirePositive(Objects.requireNonNull(max, "max"), "max");
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("max must be at least initial (" + initial + ") but was " + max);
            }
            if (delay != null) {
                throw new IllegalArgumentException("delay and backoff cannot both be set: delay is " + delay);
            }
            this.backoffInitial = initial;
            this.backoffMax = max;
            this.multiplier = 2.0;
            return this;
        }

        /**
         * Waits exponentially longer between attempts, by any factor: the delay after failed attempt {@code n} is
         * {@code initial × multiplier^(n - 1)}, never longer than {@code max}, jitter included. A multiplier of 1
         * waits {@code initial} every time. {@code backoff(initial, 2.0, max)} is {@link #backoff(Duration, Duration)}.
         * Exclusive with {@link #delay}; a later call replaces an earlier backoff.
         *
         * @param initial the first delay, positive
         * @param multiplier how much longer each delay is than the one before, at least 1 and finite
         * @param max the longest delay, at least {@code initial}
         * @return this builder
         * @throws NullPointerException when a duration is {@code null}
         * @throws IllegalArgumentException when a duration is zero or negative, {@code max} is less than
         *     {@code initial}, {@code multiplier} is below 1, infinite or not a number, or a fixed delay is set
         */
        public Builder backoff(Duration initial, double multiplier, Duration max) {
            if (!(multiplier >= 1.0 && multiplier < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("multiplier must be at least 1 and finite but was " + multiplier);
            }
            backoff(initial, max);
            this.multiplier = multiplier;
            return this;
        }

        /**
         * Randomizes each delay by up to this fraction either way (0.25: between 75% and 125% of the delay), so
         * that callers that failed together do not retry together. With a {@link #backoff}, no delay exceeds its
         * {@code max}: a randomized delay that would is folded back below {@code max} by as much as it would have
         * exceeded it, so delays that grew to {@code max} are spread evenly between {@code (1 - fraction) × max}
         * and {@code max} (never bunched at {@code max}). A fixed {@link #delay} has no cap. Default: 0. Exclusive
         * with {@link #jitter(Duration)}.
         *
         * @param fraction between 0 and 1 inclusive
         * @return this builder
         * @throws IllegalArgumentException when {@code fraction} is outside [0, 1] or not a number, or an absolute
         *     jitter is set
         */
        public Builder jitter(double fraction) {
            if (!(fraction >= 0.0 && fraction <= 1.0)) {
                throw new IllegalArgumentException("jitter must be between 0 and 1 but was " + fraction);
            }
            if (jitterSpread != null) {
                throw new IllegalArgumentException("a jitter fraction and an absolute jitter cannot both be set: the "
                        + "absolute jitter is " + jitterSpread);
            }
            this.jitter = fraction;
            return this;
        }

        /**
         * Randomizes each delay by an absolute amount that grows with the delay, never below the first delay and
         * never above the backoff's {@code max} (the scheme of Spring's {@code ExponentialBackOff}). With
         * {@code first} the {@link #delay} or the backoff's {@code initial}, a delay {@code d} becomes a uniformly
         * drawn time between {@code max(d - k × amount, first)} and {@code min(d + k × amount, max)}, where
         * {@code k = floor(d / first)}: the first delay lies between {@code first} and {@code first + amount}, a
         * delay four times as long may move by {@code 4 × amount} either way. A fixed {@link #delay} has no
         * {@code max}, so its delays lie between {@code first} and {@code first + amount}. Without a delay or a
         * backoff it changes nothing. Exclusive with {@link #jitter(double)}. Default: none.
         *
         * @param amount the jitter for a delay as long as the first, zero (none) or positive
         * @return this builder
         * @throws NullPointerException when {@code amount} is {@code null}
         * @throws IllegalArgumentException when {@code amount} is negative, or a jitter fraction is set
         */
        public Builder jitter(Duration amount) {
            Objects.requireNonNull(amount, "amount");
            if (amount.isNegative()) {
                throw new IllegalArgumentException("amount must not be negative but was " + amount);
            }
            if (jitter != 0.0) {
                throw new IllegalArgumentException("a jitter fraction and an absolute jitter cannot both be set: the "
                        + "fraction is " + jitter);
            }
            this.jitterSpread = amount;
            return this;
        }

        /**
         * Calls {@code consumer} before each retry with the failed attempt, its failure and the delay.
         *
         * @param consumer the callback
         * @return this builder
         * @throws NullPointerException when {@code consumer} is {@code null}
         */
        public Builder onRetry(Consumer<? super RetryEvent> consumer) {
            Objects.requireNonNull(consumer, "consumer");
            return listener(new RetryListener() {
                @Override
                public void retryScheduled(RetryEvent event) {
                    consumer.accept(event);
                }

                @Override
                public String toString() {
                    return "onRetry(" + consumer + ")";
                }
            });
        }

        /**
         * Builds the retry.
         *
         * @return a new retry
         */
        public Retry build() {
            return new Retry(new RetryStep(nameForBuild(), List.copyOf(handledTypes), List.copyOf(handledIf),
                    maxRetries, delay, backoffInitial, backoffMax, multiplier, jitter, jitterSpread,
                    retryClosedBulkheads, List.copyOf(listeners), scheduler, ticker));
        }
    }
}
