package dev.bulwark;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable per-call options for a bulkhead: the weight (how many slots the call takes, at least 1, default 1),
 * the {@link Priority} (default {@link Priority#NORMAL}) and the cancellation signal (default
 * {@link CancellationSignal#none()}). One small value instead of an overload per combination:
 * {@code bulkhead.call(CallOptions.weight(3), op)}, {@code bulkhead.acquireWith(CallOptions.priority(Priority.LOW))},
 * or {@code CallOptions.builder().weight(2).priority(Priority.HIGH).signal(signal).build()}.
 *
 * <p>Thread-safe (immutable); {@link #defaults()} is a shared constant, so passing it allocates nothing.
 */
public final class CallOptions {

    private static final CallOptions DEFAULTS = new CallOptions(1, Priority.NORMAL, CancellationSignal.none());

    private final int weight;
    private final Priority priority;
    private final CancellationSignal signal;

    private CallOptions(int weight, Priority priority, CancellationSignal signal) {
        this.weight = weight;
        this.priority = priority;
        this.signal = signal;
    }

    /**
     * Returns the default options: weight 1, {@link Priority#NORMAL}, no cancellation signal. A shared constant.
     *
     * @return the default options
     */
    public static CallOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Shorthand for {@code builder().weight(weight).build()}.
     *
     * @param weight how many slots the call takes, at least 1
     * @return the options
     * @throws IllegalArgumentException when {@code weight} is less than 1
     */
    public static CallOptions weight(int weight) {
        return builder().weight(weight).build();
    }

    /**
     * Shorthand for {@code builder().priority(priority).build()}.
     *
     * @param priority the call's priority
     * @return the options
     * @throws NullPointerException when {@code priority} is {@code null}
     */
    public static CallOptions priority(Priority priority) {
        return builder().priority(priority).build();
    }

    /**
     * Starts building options from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /**
     * Returns how many slots the call takes.
     *
     * @return at least 1
     */
    public int weight() {
        return weight;
    }

    /**
     * Returns the call's priority in the queue.
     *
     * @return the priority, never {@code null}
     */
    public Priority priority() {
        return priority;
    }

    /**
     * Returns the signal that lets the caller give up while waiting.
     *
     * @return the signal, never {@code null}
     */
    public CancellationSignal signal() {
        return signal;
    }

    /**
     * Returns a builder holding these options, to derive a variant.
     *
     * @return a new builder; changing it does not change these options
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof CallOptions)) {
            return false;
        }
        CallOptions that = (CallOptions) other;
        return weight == that.weight && priority == that.priority && signal.equals(that.signal);
    }

    @Override
    public int hashCode() {
        return Objects.hash(weight, priority, signal);
    }

    @Override
    public String toString() {
        return "CallOptions[weight=" + weight + ", priority=" + priority
                + (signal == CancellationSignal.none() ? "" : ", signal=" + signal) + "]";
    }

    /**
     * Builds {@link CallOptions}. Not thread-safe: build on one thread. Each setter checks its argument at once
     * and names it in the exception.
     */
    public static final class Builder {
        private int weight;
        private Priority priority;
        private CancellationSignal signal;

        Builder(CallOptions from) {
            this.weight = from.weight;
            this.priority = from.priority;
            this.signal = from.signal;
        }

        /**
         * Sets how many slots the call takes. Default: 1.
         *
         * @param weight at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code weight} is less than 1
         */
        public Builder weight(int weight) {
            if (weight < 1) {
                throw new IllegalArgumentException("weight must be at least 1 but was " + weight);
            }
            this.weight = weight;
            return this;
        }

        /**
         * Sets the call's priority. Default: {@link Priority#NORMAL}.
         *
         * @param priority the priority
         * @return this builder
         * @throws NullPointerException when {@code priority} is {@code null}
         */
        public Builder priority(Priority priority) {
            this.priority = Objects.requireNonNull(priority, "priority");
            return this;
        }

        /**
         * Sets the signal that lets the caller give up while waiting. Default: {@link CancellationSignal#none()}.
         *
         * @param signal the signal
         * @return this builder
         * @throws NullPointerException when {@code signal} is {@code null}
         */
        public Builder signal(CancellationSignal signal) {
            this.signal = Objects.requireNonNull(signal, "signal");
            return this;
        }

        /**
         * Returns the options built so far. Building the defaults returns the shared {@link #defaults()} constant.
         *
         * @return immutable options
         */
        public CallOptions build() {
            if (weight == 1 && priority == Priority.NORMAL && signal == CancellationSignal.none()) {
                return DEFAULTS;
            }
            return new CallOptions(weight, priority, signal);
        }
    }
}
