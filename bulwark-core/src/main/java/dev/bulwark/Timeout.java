package dev.bulwark;

import dev.bulwark.internal.TimeoutStep;
import dev.bulwark.internal.util.Arguments;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A policy that gives a call a deadline.
 *
 * <p><b>Synchronous calls</b> run on the caller's thread. At the deadline the signal handed to the inner steps is
 * cancelled with the {@link TimeoutExceededException} as its reason (so an inner bulkhead waiter leaves its queue at
 * that moment), and, if {@link Builder#interruptOnTimeout(boolean) configured}, the thread is interrupted. That
 * cancellation runs on the thread of the {@link Scheduler} (with {@link Scheduler#shared()}, the
 * {@code bulwark-timer} thread), so a listener that an inner {@link Policy} of your own registers with
 * {@link CancellationSignal#onCancel(Runnable)} runs there: it must be quick and must not block, since the caller
 * waits for it to end before it throws (and, on the shared scheduler, every deadline of the process waits behind
 * it). The caller gets {@link TimeoutExceededException} no later than when the operation returns; a result (or
 * failure) that arrives after the deadline is discarded (a late failure is attached as suppressed). An interrupt
 * this policy caused is cleared before the exception is thrown; one that was already pending when the deadline
 * passed is the caller's: the policy neither interrupts again nor clears it. The operation's own exception, when it
 * failed before the deadline, passes through untouched; a signal already cancelled when the call starts gives a
 * {@link java.util.concurrent.CancellationException}. The deadline is scheduled before the operation starts: a
 * {@link Scheduler} that refuses it makes the call throw the scheduler's exception, and the operation never runs.
 *
 * <p><b>Asynchronous calls</b> schedule the deadline before the operation starts too: a refused deadline fails the
 * returned future with the scheduler's exception, and the operation never runs. The returned future completes
 * exceptionally with {@link TimeoutExceededException} at the deadline (within timer precision), the inner stage is
 * cancelled where it is a future, and then the inner signal is cancelled (in that order, so that an inner
 * {@link Retry}, even one waiting out a delay, ends without reporting to its listeners: the call is this timeout's to
 * report). An inner bulkhead keeps its slot until the inner operation's own stage completes, so a timeout never lets
 * more calls run than the bulkhead's limit.
 *
 * <p>Thread-safe; share one instance. Each call that starts schedules one timer task on the {@link Scheduler}, and
 * cancels it when the call ends first.
 */
// The step type is internal on purpose: it is implementation, named here only to type the shared base.
@SuppressWarnings("exports")
public final class Timeout extends SingleStepPolicy<TimeoutStep> {

    private Timeout(TimeoutStep step) {
        super(step);
    }

    /**
     * Makes a timeout with the given duration and the defaults of {@link #builder()}.
     *
     * @param timeout a positive duration
     * @return a new timeout
     * @throws NullPointerException when {@code timeout} is {@code null}
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public static Timeout of(Duration timeout) {
        return builder().timeout(timeout).build();
    }

    /**
     * Starts configuring a timeout. The duration must be set; by default the thread is not interrupted.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the timeout's name, used in exceptions, events and metrics.
     *
     * @return the name
     */
    public String name() {
        return step.name();
    }

    /**
     * Returns the configured duration.
     *
     * @return the timeout
     */
    public Duration timeout() {
        return step.timeout();
    }

    /**
     * Attaches a listener after construction (metrics bind this way). A listener attached while calls are in
     * flight sees only their later events.
     *
     * @param listener the listener
     * @return the subscription that detaches it
     * @throws NullPointerException when {@code listener} is {@code null}
     */
    public Subscription addListener(TimeoutListener listener) {
        return step.addListener(listener);
    }

    /** Configures a {@link Timeout}. Not thread-safe. */
    public static final class Builder extends PolicyBuilder<Builder, TimeoutListener> {
        private @Nullable Duration timeout;
        private boolean interruptOnTimeout;

        private Builder() {
            super("timeout");
        }

        /**
         * Sets the duration after which a call times out. Required.
         *
         * @param timeout a positive duration
         * @return this builder
         * @throws NullPointerException when {@code timeout} is {@code null}
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Arguments.requirePositive(Objects.requireNonNull(timeout, "timeout"), "timeout");
            return this;
        }

        /**
         * Sets whether a synchronous call's thread is interrupted at the deadline (for operations that respond to
         * interrupts, such as blocking I/O on interruptible channels). Default: {@code false}. For asynchronous
         * calls it is passed to {@link java.util.concurrent.Future#cancel(boolean)} of the inner stage.
         *
         * @param interrupt whether to interrupt
         * @return this builder
         */
        public Builder interruptOnTimeout(boolean interrupt) {
            this.interruptOnTimeout = interrupt;
            return this;
        }

        /**
         * Calls {@code consumer} with the exception of every call that timed out: for a synchronous call, on the
         * caller's thread as the call returns when the scheduler is {@link Scheduler#shared()} (the default), on
         * the scheduler's thread at the deadline with any other scheduler; for an asynchronous call, just after
         * the deadline on a thread of {@code ForkJoinPool.commonPool()} with {@link Scheduler#shared()}, on the
         * scheduler's thread with any other.
         *
         * @param consumer the callback
         * @return this builder
         * @throws NullPointerException when {@code consumer} is {@code null}
         */
        public Builder onTimeout(Consumer<? super TimeoutExceededException> consumer) {
            Objects.requireNonNull(consumer, "consumer");
            return listener(new TimeoutListener() {
                @Override
                public void timedOut(TimeoutExceededException exception) {
                    consumer.accept(exception);
                }

                @Override
                public String toString() {
                    return "onTimeout(" + consumer + ")";
                }
            });
        }

        /**
         * Builds the timeout.
         *
         * @return a new timeout
         * @throws IllegalStateException when no duration was set
         */
        public Timeout build() {
            if (timeout == null) {
                throw new IllegalStateException("timeout must be set: call timeout(Duration) before build()");
            }
            return new Timeout(new TimeoutStep(nameForBuild(), timeout, interruptOnTimeout, List.copyOf(listeners),
                    scheduler, ticker));
        }
    }
}
