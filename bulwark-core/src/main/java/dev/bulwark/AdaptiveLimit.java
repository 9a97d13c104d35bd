package dev.bulwark;

import dev.bulwark.internal.util.Arguments;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * How an adaptive bulkhead moves its concurrency limit from observed outcomes, between a minimum and a maximum.
 * Give one to {@link Bulkhead.Builder#adaptive(AdaptiveLimit)}; the builder's {@code maxConcurrency} is the
 * starting limit.
 *
 * <p>Every call (or permit) that ends is a sample (at high call rates, every sampled one: see below): its latency
 * from admission to release, how many calls held slots at that moment, and its {@link Permit.Outcome}. Samples are
 * gathered into windows of {@code max(windowSamples, limit)} samples, about one round trip at full use, and the
 * limit moves at most once per window: decisions rest on a window's mean latency, so a single slow call among fast
 * ones (common with high-variance latencies) decides nothing, and a burst of twenty timeouts is one cut, not
 * twenty. {@code call}/{@code callAsync} classify the outcome themselves: a normal return is a success; a failure
 * matching {@link #dropWhen()} (by default a {@link TimeoutExceededException} or a
 * {@link BulkheadRejectedException} from further down) is a drop; any other failure is ignored. A {@link Permit}
 * reports it through {@link Permit#close(Permit.Outcome)}.
 *
 * <p>Three algorithms:
 * <ul>
 *   <li>{@link #selfTuning()}: the one to reach for; it needs no knowledge of the resource. It measures the
 *       resource's latency without contention at a pinned low concurrency (and again now and then), then keeps
 *       the limit where one more call in flight would start to slow every call down, deciding as soon as the
 *       evidence is statistically clear rather than after a fixed number of samples. See
 *       {@link SelfTuningLimit}.</li>
 *   <li>{@link #aimd()}: additive increase, multiplicative decrease. A window of fast successes grows the limit
 *       by one (only while at least half of it is in use, so an idle bulkhead does not creep upwards); a window
 *       with a drop, or whose mean latency is above the threshold, cuts it by the backoff ratio.</li>
 *   <li>{@link #gradient()}: compares each window's mean latency with a baseline (latency without queueing);
 *       within the tolerance the limit grows (by its square root per window until the first back-off, a fast
 *       ramp-up; then gently, from 1, doubling while it keeps growing), beyond it the limit shrinks in proportion
 *       to the latency increase. Unlike Netflix's Gradient2, headroom is added only when latency is within
 *       tolerance (their issue #134: adding it under modest overload makes the limit creep up forever), and the
 *       baseline may only fall while our own load can be what raised latency, so sustained queueing cannot become
 *       the new normal. Its first baseline comes from the first window, so start it below the capacity you
 *       expect (the bulkhead's {@code maxConcurrency}) and let it ramp up: started far above the capacity, it
 *       can learn the overloaded latency as the baseline and keep the limit too high. AIMD, given a latency
 *       threshold, does not depend on where it starts.</li>
 * </ul>
 *
 * <p>Configurations are immutable values; each bulkhead keeps its own algorithm state. This interface is sealed:
 * its implementations are {@link SelfTuningLimit}, {@link Aimd} and {@link Gradient}.
 *
 * <p><b>Cost and sampling.</b> Samples are taken without a lock. An adaptive bulkhead times every call while it
 * sees fewer than about 8,000 calls a second; above that it times one call in {@code n} ({@code n} a power of two
 * up to 64, chosen once per window from the call rate so that at least about 4,000 calls a second are still
 * timed): an untimed call that succeeds reads no clock and leaves no sample. Every drop is counted, timed or
 * not. A timed call costs two clock reads and one atomic add (see the design notes of the internal windowed
 * sampler). The choice uses counters, not random numbers (one per stripe of threads, a thread always counting
 * on the same one, so contended callers do not share a cache line), so a virtual-time run stays deterministic.
 *
 * <p><b>Where it works.</b> Any in-process bulkhead: with a queue and a maximum wait, FIFO or LIFO, listeners,
 * and {@code changeMaxConcurrency} by hand (the algorithm continues from the new value). Per-key bulkheads: a
 * {@link PartitionedBulkhead} whose per-key configuration ({@code defaultConfig} or {@code configFor}) carries an
 * adaptive limit gives every partition its own algorithm state, so each key adapts to its own latencies; a
 * partition evicted after its idle timeout starts again from the configured limit. The cluster-wide
 * {@code RedisBulkhead} (module {@code bulwark-redis}) takes the same limits for its fleet-wide limit: each
 * instance samples its own calls and applies a decision as a compare-and-set of the limit in Redis.
 */
public sealed interface AdaptiveLimit permits AdaptiveLimit.Aimd, AdaptiveLimit.Gradient, SelfTuningLimit {

    /**
     * Starts configuring the adaptive limit to reach for: one that needs no knowledge of the resource's service
     * time, capacity or a latency threshold (see {@link SelfTuningLimit} for the algorithm and when not to use
     * it). {@code AdaptiveLimit.selfTuning().build()} is a complete configuration.
     *
     * @return a new builder
     */
    static SelfTuningLimit.Builder selfTuning() {
        return new SelfTuningLimit.Builder();
    }

    /**
     * Starts configuring an AIMD limit. Without {@link Aimd.Builder#latencyThreshold(Duration)} it reacts only to
     * drops (timeouts and refusals further down): against a resource that slows down rather than fails it then
     * climbs to its maximum and stays there. Give it a threshold, or use {@link #selfTuning()}.
     *
     * @return a new builder
     */
    static Aimd.Builder aimd() {
        return new Aimd.Builder();
    }

    /**
     * Starts configuring a gradient limit.
     *
     * @return a new builder
     */
    static Gradient.Builder gradient() {
        return new Gradient.Builder();
    }

    /**
     * Returns the lowest the limit goes.
     *
     * @return at least 1
     */
    int minLimit();

    /**
     * Returns the highest the limit goes.
     *
     * @return at least {@link #minLimit()}
     */
    int maxLimit();

    /**
     * Returns the fewest samples a decision window holds.
     *
     * @return at least 1
     */
    int windowSamples();

    /**
     * Returns which failures of {@code call}/{@code callAsync} count as drops (overload) rather than being ignored.
     *
     * @return the predicate
     */
    Predicate<? super Throwable> dropWhen();

    /**
     * The default drop classification: a timeout, or a refusal by a bulkhead further down.
     *
     * @param failure a failure
     * @return whether it signals overload
     */
    private static boolean overload(Throwable failure) {
        return failure instanceof TimeoutExceededException || failure instanceof BulkheadRejectedException;
    }

    /** Settings shared by both algorithms' builders. */
    abstract sealed class Settings<B extends Settings<B>> permits Aimd.Builder, Gradient.Builder,
            SelfTuningLimit.Builder {
        int minLimit = 1;
        int maxLimit = 1000;
        int windowSamples = 50;
        Predicate<? super Throwable> dropWhen = AdaptiveLimit::overload;

        Settings() {
        }

        abstract B self();

        /**
         * Sets the lowest the limit goes. Default: 1.
         *
         * @param minLimit at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code minLimit} is less than 1
         */
        public B minLimit(int minLimit) {
            if (minLimit < 1) {
                throw new IllegalArgumentException("minLimit must be at least 1 but was " + minLimit);
            }
            this.minLimit = minLimit;
            return self();
        }

        /**
         * Sets the highest the limit goes. Default: 1000.
         *
         * @param maxLimit at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code maxLimit} is less than 1
         */
        public B maxLimit(int maxLimit) {
            if (maxLimit < 1) {
                throw new IllegalArgumentException("maxLimit must be at least 1 but was " + maxLimit);
            }
            this.maxLimit = maxLimit;
            return self();
        }

        /**
         * Sets the fewest samples a decision window holds (a window also spans at least the current limit's worth
         * of samples, about one round trip). More samples make decisions steadier and slower. Default: 50 for
         * {@link AdaptiveLimit#aimd()} and {@link AdaptiveLimit#gradient()}, 20 for
         * {@link AdaptiveLimit#selfTuning()}.
         *
         * @param samples at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code samples} is less than 1
         */
        public B windowSamples(int samples) {
            if (samples < 1) {
                throw new IllegalArgumentException("windowSamples must be at least 1 but was " + samples);
            }
            this.windowSamples = samples;
            return self();
        }

        /**
         * Sets which failures count as drops. Default: {@link TimeoutExceededException} and
         * {@link BulkheadRejectedException}.
         *
         * @param predicate selects the failures that signal overload
         * @return this builder
         * @throws NullPointerException when {@code predicate} is {@code null}
         */
        public B dropWhen(Predicate<? super Throwable> predicate) {
            this.dropWhen = Objects.requireNonNull(predicate, "predicate");
            return self();
        }

        void checkRange() {
            if (maxLimit < minLimit) {
                throw new IllegalArgumentException("maxLimit (" + maxLimit + ") must be at least minLimit ("
                        + minLimit + ")");
            }
        }
    }

    /** Additive increase, multiplicative decrease. Immutable. */
    final class Aimd extends AdaptiveLimitRange implements AdaptiveLimit {
        private final double backoffRatio;
        private final Duration latencyThreshold;

        private Aimd(Builder builder) {
            super(builder);
            this.backoffRatio = builder.backoffRatio;
            this.latencyThreshold = builder.latencyThreshold;
        }

        /**
         * Returns the factor a drop multiplies the limit by.
         *
         * @return in (0, 1)
         */
        public double backoffRatio() {
            return backoffRatio;
        }

        /**
         * Returns the mean window latency above which the window counts as overloaded.
         *
         * @return the threshold, or empty when only drops cut the limit
         */
        public Optional<Duration> latencyThreshold() {
            return Optional.ofNullable(latencyThreshold);
        }

        @Override
        public String toString() {
            return "AIMD[" + minLimit() + ".." + maxLimit() + ", window " + windowSamples() + " samples, backoff "
                    + backoffRatio
                    + (latencyThreshold == null ? ", no latency threshold: reacts to drops only"
                    : ", threshold " + latencyThreshold) + "]";
        }

        /** Configures an {@link Aimd} limit. Not thread-safe. */
        public static final class Builder extends Settings<Builder> {
            private double backoffRatio = 0.9;
            private Duration latencyThreshold;

            private Builder() {
            }

            @Override
            Builder self() {
                return this;
            }

            /**
             * Sets the factor a drop multiplies the limit by. Default: 0.9.
             *
             * @param ratio strictly between 0 and 1
             * @return this builder
             * @throws IllegalArgumentException when {@code ratio} is not strictly between 0 and 1
             */
            public Builder backoffRatio(double ratio) {
                if (!(ratio > 0.0 && ratio < 1.0)) {
                    throw new IllegalArgumentException("backoffRatio must be between 0 and 1 (exclusive) but was "
                            + ratio);
                }
                this.backoffRatio = ratio;
                return this;
            }

            /**
             * Sets the mean window latency above which a window counts as overloaded and cuts the limit. Default:
             * none (only drops cut it). Set it a little above the resource's latency when healthy.
             *
             * @param threshold a positive duration
             * @return this builder
             * @throws NullPointerException when {@code threshold} is {@code null}
             * @throws IllegalArgumentException when {@code threshold} is zero or negative
             */
            public Builder latencyThreshold(Duration threshold) {
                this.latencyThreshold = Arguments.requirePositive(Objects.requireNonNull(threshold, "threshold"),
                        "latencyThreshold");
                return this;
            }

            /**
             * Builds the configuration.
             *
             * @return a new AIMD configuration
             * @throws IllegalArgumentException when {@code maxLimit} is less than {@code minLimit}
             */
            public Aimd build() {
                checkRange();
                return new Aimd(this);
            }
        }
    }

    /** Each window's mean latency against a baseline. Immutable. */
    final class Gradient extends AdaptiveLimitRange implements AdaptiveLimit {
        private final double tolerance;
        private final double smoothing;
        private final int baselineWindows;

        private Gradient(Builder builder) {
            super(builder);
            this.tolerance = builder.tolerance;
            this.smoothing = builder.smoothing;
            this.baselineWindows = builder.baselineWindows;
        }

        /**
         * Returns how much a window's mean latency may exceed the baseline before the limit shrinks.
         *
         * @return at least 1 (1.1 means 10% above the baseline is tolerated)
         */
        public double tolerance() {
            return tolerance;
        }

        /**
         * Returns how far each update moves the limit towards its target.
         *
         * @return in (0, 1]
         */
        public double smoothing() {
            return smoothing;
        }

        /**
         * Returns over how many windows the baseline latency is averaged.
         *
         * @return at least 2
         */
        public int baselineWindows() {
            return baselineWindows;
        }

        @Override
        public String toString() {
            return "Gradient[" + minLimit() + ".." + maxLimit() + ", tolerance " + tolerance + ", smoothing "
                    + smoothing
                    + ", window " + windowSamples() + " samples, baseline over " + baselineWindows + " windows]";
        }

        /** Configures a {@link Gradient} limit. Not thread-safe. */
        public static final class Builder extends Settings<Builder> {
            private double tolerance = 1.1;
            private double smoothing = 0.2;
            private int baselineWindows = 20;

            private Builder() {
            }

            @Override
            Builder self() {
                return this;
            }

            /**
             * Sets how much a window's mean latency may exceed the baseline before the limit shrinks. Default: 1.1
             * (a tenth above the baseline is tolerated: a little queueing downstream keeps it busy, more only adds
             * latency).
             *
             * @param tolerance at least 1
             * @return this builder
             * @throws IllegalArgumentException when {@code tolerance} is less than 1 or not a number
             */
            public Builder tolerance(double tolerance) {
                if (!(tolerance >= 1.0) || Double.isInfinite(tolerance)) {
                    throw new IllegalArgumentException("tolerance must be at least 1 but was " + tolerance);
                }
                this.tolerance = tolerance;
                return this;
            }

            /**
             * Sets how far each update moves the limit towards its target. Default: 0.2.
             *
             * @param smoothing in (0, 1]
             * @return this builder
             * @throws IllegalArgumentException when {@code smoothing} is outside (0, 1]
             */
            public Builder smoothing(double smoothing) {
                if (!(smoothing > 0.0 && smoothing <= 1.0)) {
                    throw new IllegalArgumentException("smoothing must be in (0, 1] but was " + smoothing);
                }
                this.smoothing = smoothing;
                return this;
            }

            /**
             * Sets over how many windows the baseline latency is averaged: more makes it steadier, and slower to
             * accept a resource that genuinely became slower. Default: 20.
             *
             * @param windows at least 2
             * @return this builder
             * @throws IllegalArgumentException when {@code windows} is less than 2
             */
            public Builder baselineWindows(int windows) {
                if (windows < 2) {
                    throw new IllegalArgumentException("baselineWindows must be at least 2 but was " + windows);
                }
                this.baselineWindows = windows;
                return this;
            }

            /**
             * Builds the configuration.
             *
             * @return a new gradient configuration
             * @throws IllegalArgumentException when {@code maxLimit} is less than {@code minLimit}
             */
            public Gradient build() {
                checkRange();
                return new Gradient(this);
            }
        }
    }
}
