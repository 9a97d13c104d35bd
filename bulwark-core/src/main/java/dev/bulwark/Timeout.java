package dev.bulwark;

import dev.bulwark.internal.Chain;
import dev.bulwark.internal.ChainStep;
import dev.bulwark.internal.StepSource;
import dev.bulwark.internal.TimeoutStep;
import dev.bulwark.internal.spi.Arguments;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A policy that gives a call a deadline.
 *
 * <p><b>Synchronous calls</b> run on the caller's thread. At the deadline the signal handed to the inner steps is
 * cancelled with the {@link TimeoutExceededException} as its reason (so an inner bulkhead waiter leaves its queue
 * at that moment), and, if {@link Builder#interruptOnTimeout(boolean) configured}, the thread is interrupted. The
 * caller gets {@link TimeoutExceededException} no later than when the operation returns; a result (or failure)
 * that arrives after the deadline is discarded (a late failure is attached as suppressed). An interrupt this
 * policy caused is cleared before the exception is thrown.
 *
 * <p><b>Asynchronous calls</b>: the returned future completes exceptionally with {@link TimeoutExceededException}
 * at the deadline (within timer precision), the inner signal is cancelled, and the inner stage is cancelled where
 * it is a future. An inner bulkhead keeps its slot until the inner operation's own stage completes, so a timeout
 * never lets more calls run than the bulkhead's limit.
 *
 * <p>Thread-safe; share one instance. Each call schedules one timer task on the {@link Scheduler}.
 */
// StepSource and ChainStep are not exported on purpose: the contract binds Bulwark's own policies only.
@SuppressWarnings("exports")
public final class Timeout implements Policy, StepSource {

    private final TimeoutStep step;

    private Timeout(TimeoutStep step) {
        this.step = step;
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
     * Appends this timeout's step to a pipeline's chain. Part of Bulwark's internal composition contract
     * ({@code dev.bulwark.internal.StepSource}, not exported): applications compose with
     * {@link Pipeline#of(Policy...)} instead.
     *
     * @param steps the chain being assembled
     */
    @Override
    public void appendStepsTo(List<ChainStep> steps) {
        steps.add(step);
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

    /**
     * Runs {@code operation} on the calling thread with a deadline.
     *
     * @throws X the operation's own exception, untouched, when it failed before the deadline
     * @throws TimeoutExceededException when the deadline passed before the operation returned
     * @throws java.util.concurrent.CancellationException when {@code signal} is cancelled before the call starts
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T extends @Nullable Object, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
            throws X {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return step.call(Chain.EMPTY, 0, operation, signal);
    }

    /**
     * Runs an asynchronous operation with a deadline; see the class description.
     *
     * @throws NullPointerException when an argument is {@code null}
     */
    @Override
    public <T extends @Nullable Object> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                              CancellationSignal signal) {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(signal, "signal");
        return step.callAsync(Chain.EMPTY, 0, operation, signal);
    }

    @Override
    public String toString() {
        return "Timeout[" + step + "]";
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
         * Calls {@code consumer} with the exception of every call that timed out, on the timer thread.
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
            return new Timeout(new TimeoutStep(name, timeout, interruptOnTimeout, List.copyOf(listeners),
                    scheduler, ticker));
        }
    }
}
