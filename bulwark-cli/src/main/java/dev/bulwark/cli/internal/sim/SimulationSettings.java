package dev.bulwark.cli.internal.sim;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything that defines one simulation run: the arrivals, the downstream, the bulkhead (or none), and how
 * long it runs. Immutable; made by {@link #builder()}. Two runs with equal settings (and so the same seed) draw
 * the same sequence of arrival times and service times.
 */
public final class SimulationSettings {

    private final Duration duration;
    private final ArrivalModel arrivals;
    private final long seed;
    private final Distribution serviceTime;
    private final int downstreamCapacity;
    private final double degradation;
    private final double contention;
    private final BulkheadSettings bulkhead;
    private final RetrySettings retry;
    private final Duration timeout;
    private final ExecutionMode mode;
    private final Duration drain;
    private final Duration sampleInterval;
    private final CallMix callMix;
    private final List<Slowdown> slowdowns;

    private SimulationSettings(Builder builder) {
        this.duration = builder.duration;
        this.arrivals = builder.arrivals;
        this.seed = builder.seed;
        this.serviceTime = builder.serviceTime;
        this.downstreamCapacity = builder.downstreamCapacity;
        this.degradation = builder.degradation;
        this.contention = builder.contention;
        this.bulkhead = builder.bulkhead;
        this.retry = builder.retry;
        this.timeout = builder.timeout;
        this.mode = builder.mode;
        this.drain = builder.drain;
        this.sampleInterval = builder.sampleInterval;
        this.callMix = builder.callMix != null ? builder.callMix : scheduledPriorities(builder.arrivals);
        this.slowdowns = builder.slowdowns;
    }

    /**
     * The call mix a schedule with priorities implies when none is set: each call takes its lane's priority (what
     * {@code --schedule} does on the command line). Without it a run built in code would drop the lanes' priorities.
     */
    private static CallMix scheduledPriorities(ArrivalModel arrivals) {
        if (arrivals instanceof ArrivalModel.OpenLoop open && open.schedule() != null
                && open.schedule().priorityShares() != null) {
            return new CallMix(open.schedule().priorityShares(), null, Map.of());
        }
        return null;
    }

    /**
     * Starts a configuration with the command line's defaults: 10 s of Poisson arrivals at 2000/s, service time
     * {@code exp:20ms}, downstream capacity 32 with degradation 1, a bulkhead of limit 32, queue 64 and maximum
     * wait 100 ms, asynchronous calls, a drain of 1 s and a sample every 100 ms; seed 1.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a builder holding these settings, to derive a variant (a sweep changes only the bulkhead).
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.duration = duration;
        builder.arrivals = arrivals;
        builder.seed = seed;
        builder.serviceTime = serviceTime;
        builder.downstreamCapacity = downstreamCapacity;
        builder.degradation = degradation;
        builder.contention = contention;
        builder.bulkhead = bulkhead;
        builder.retry = retry;
        builder.timeout = timeout;
        builder.mode = mode;
        builder.drain = drain;
        builder.sampleInterval = sampleInterval;
        builder.callMix = callMix;
        builder.slowdowns = slowdowns;
        return builder;
    }

    /**
     * Returns how long calls arrive.
     *
     * @return a positive duration
     */
    public Duration duration() {
        return duration;
    }

    /**
     * Returns how calls arrive.
     *
     * @return the arrival model
     */
    public ArrivalModel arrivals() {
        return arrivals;
    }

    /**
     * Returns the seed of every random sequence of the run.
     *
     * @return the seed
     */
    public long seed() {
        return seed;
    }

    /**
     * Returns the distribution of the work each call asks of the downstream: its service time when the
     * downstream is not overloaded.
     *
     * @return the service-time distribution
     */
    public Distribution serviceTime() {
        return serviceTime;
    }

    /**
     * Returns how many calls the downstream serves at full speed at once.
     *
     * @return at least 1
     */
    public int downstreamCapacity() {
        return downstreamCapacity;
    }

    /**
     * Returns how steeply the downstream's total throughput falls when overloaded; see
     * {@link ProcessorSharingModel}.
     *
     * @return at least 0
     */
    public double degradation() {
        return degradation;
    }

    /**
     * Returns the serial fraction that slows every call of the downstream when several progress at once (Amdahl's
     * law; see {@link ProcessorSharingModel}); 0 unless set.
     *
     * @return at least 0
     */
    public double contention() {
        return contention;
    }

    /**
     * Returns the bulkhead in front of the downstream.
     *
     * @return its settings, or empty for the unprotected baseline
     */
    public Optional<BulkheadSettings> bulkhead() {
        return Optional.ofNullable(bulkhead);
    }

    /**
     * Returns the retry around each call (outside the timeout and the bulkhead: each attempt asks the bulkhead
     * for a slot again).
     *
     * @return its settings, or empty for none
     */
    public Optional<RetrySettings> retry() {
        return Optional.ofNullable(retry);
    }

    /**
     * Returns the timeout of each attempt (inside the retry, outside the bulkhead: it covers the queue wait and
     * the downstream's work).
     *
     * @return the timeout, or empty for none
     */
    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    /**
     * Returns how calls go through the bulkhead.
     *
     * @return the execution mode
     */
    public ExecutionMode mode() {
        return mode;
    }

    /**
     * Returns how long calls still queued or in flight when the arrivals stop may take to finish before they
     * are cancelled.
     *
     * @return zero or positive
     */
    public Duration drain() {
        return drain;
    }

    /**
     * Returns how often the run records a point of its time series (and refreshes its progress line).
     *
     * @return positive
     */
    public Duration sampleInterval() {
        return sampleInterval;
    }

    /**
     * Returns the priorities and weights of the calls, and the bulkhead's reserves.
     *
     * @return the mix set, or, when none was and the arrivals follow a schedule whose lanes have priorities, one of
     *     those priorities in the schedule's shares (each call takes its lane's); empty when every call is weight 1
     *     at {@code NORMAL} (the calls are then made without options, exactly as before priorities existed)
     */
    public Optional<CallMix> callMix() {
        return Optional.ofNullable(callMix);
    }

    /**
     * Returns the periods during which the downstream works slower, in order; empty unless set (only a run in
     * {@link ExecutionMode#VIRTUAL_TIME} takes them).
     *
     * @return the periods, sorted by start and not overlapping; immutable
     */
    public List<Slowdown> slowdowns() {
        return slowdowns;
    }

    /**
     * Returns the offered load in calls' worth of work: for open-loop arrivals, rate times mean service time
     * (how many calls would be in flight on average if the downstream never slowed down).
     *
     * @return the offered concurrency, or empty for closed-loop arrivals
     */
    public Optional<Double> offeredConcurrency() {
        if (arrivals instanceof ArrivalModel.OpenLoop) {
            return Optional.of(((ArrivalModel.OpenLoop) arrivals).rate().perSecond() * serviceTime.meanNanos() / 1e9);
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "SimulationSettings[" + Durations.format(duration) + ", " + arrivals.describe() + ", seed " + seed
                + ", service time " + serviceTime.spec() + ", capacity " + downstreamCapacity + ", degradation "
                + degradation + (contention > 0 ? ", contention " + contention : "") + ", "
                + (bulkhead == null ? "no bulkhead" : bulkhead.describe())
                + (retry == null ? "" : ", " + retry.describe())
                + (timeout == null ? "" : ", timeout " + Durations.format(timeout)) + ", " + mode
                + ", drain " + Durations.format(drain) + (callMix == null ? "" : ", " + callMix.describe())
                + (slowdowns.isEmpty() ? "" : ", slowdowns " + slowdowns.stream().map(Slowdown::describe).toList())
                + "]";
    }

    /**
     * Configures a run. Not thread-safe. Each setter checks its argument at once and names it in the exception.
     */
    public static final class Builder {
        private Duration duration = Duration.ofSeconds(10);
        private ArrivalModel arrivals = new ArrivalModel.OpenLoop(new Rate(2000));
        private long seed = 1;
        private Distribution serviceTime = new Distribution.Exponential(Duration.ofMillis(20));
        private int downstreamCapacity = 32;
        private double degradation = 1.0;
        private double contention;
        private BulkheadSettings bulkhead = new BulkheadSettings(32, 64, Duration.ofMillis(100));
        private RetrySettings retry;
        private Duration timeout;
        private ExecutionMode mode = ExecutionMode.ASYNC;
        private Duration drain = Duration.ofSeconds(1);
        private Duration sampleInterval = Duration.ofMillis(100);
        private CallMix callMix;
        private List<Slowdown> slowdowns = List.of();

        private Builder() {
        }

        /**
         * Sets how long calls arrive.
         *
         * @param duration positive
         * @return this builder
         * @throws IllegalArgumentException when {@code duration} is zero or negative
         * @throws NullPointerException when {@code duration} is {@code null}
         */
        public Builder duration(Duration duration) {
            this.duration = positive(duration, "duration");
            return this;
        }

        /**
         * Sets how calls arrive.
         *
         * @param arrivals the arrival model
         * @return this builder
         * @throws NullPointerException when {@code arrivals} is {@code null}
         */
        public Builder arrivals(ArrivalModel arrivals) {
            this.arrivals = Objects.requireNonNull(arrivals, "arrivals");
            return this;
        }

        /**
         * Sets the seed of every random sequence of the run.
         *
         * @param seed any value
         * @return this builder
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Sets the distribution of each call's service time at an unloaded downstream.
         *
         * @param serviceTime the distribution
         * @return this builder
         * @throws NullPointerException when {@code serviceTime} is {@code null}
         */
        public Builder serviceTime(Distribution serviceTime) {
            this.serviceTime = Objects.requireNonNull(serviceTime, "serviceTime");
            return this;
        }

        /**
         * Sets how many calls the downstream serves at full speed at once.
         *
         * @param downstreamCapacity at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code downstreamCapacity} is less than 1
         */
        public Builder downstreamCapacity(int downstreamCapacity) {
            if (downstreamCapacity < 1) {
                throw new IllegalArgumentException("downstreamCapacity must be at least 1 but was "
                        + downstreamCapacity);
            }
            this.downstreamCapacity = downstreamCapacity;
            return this;
        }

        /**
         * Sets how steeply the downstream's throughput falls when overloaded (0: not at all).
         *
         * @param degradation finite and at least 0
         * @return this builder
         * @throws IllegalArgumentException when {@code degradation} is negative or not finite
         */
        public Builder degradation(double degradation) {
            if (!(degradation >= 0) || Double.isInfinite(degradation)) {
                throw new IllegalArgumentException("degradation must be finite and at least 0 but was "
                        + degradation);
            }
            this.degradation = degradation;
            return this;
        }

        /**
         * Sets the downstream's contention: the serial fraction that slows every call when several progress at once
         * (0, the default: none; see {@link ProcessorSharingModel}). Not a command-line option: the lab
         * ({@code bulwark-lab}) fits it to a real database's probe.
         *
         * @param contention finite and at least 0
         * @return this builder
         * @throws IllegalArgumentException when {@code contention} is negative or not finite
         */
        public Builder contention(double contention) {
            if (!(contention >= 0) || Double.isInfinite(contention)) {
                throw new IllegalArgumentException("contention must be finite and at least 0 but was " + contention);
            }
            this.contention = contention;
            return this;
        }

        /**
         * Sets the bulkhead in front of the downstream.
         *
         * @param bulkhead its settings, or {@code null} to run without one (the unprotected baseline)
         * @return this builder
         */
        public Builder bulkhead(BulkheadSettings bulkhead) {
            this.bulkhead = bulkhead;
            return this;
        }

        /**
         * Sets the retry around each call.
         *
         * @param retry its settings, or {@code null} for none
         * @return this builder
         */
        public Builder retry(RetrySettings retry) {
            this.retry = retry;
            return this;
        }

        /**
         * Sets the timeout of each attempt.
         *
         * @param timeout positive, or {@code null} for none
         * @return this builder
         * @throws IllegalArgumentException when {@code timeout} is zero or negative
         */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout == null ? null : positive(timeout, "timeout");
            return this;
        }

        /**
         * Sets how calls go through the bulkhead.
         *
         * @param mode the execution mode
         * @return this builder
         * @throws NullPointerException when {@code mode} is {@code null}
         */
        public Builder mode(ExecutionMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * Sets how long outstanding calls may take to finish after the arrivals stop.
         *
         * @param drain zero or positive
         * @return this builder
         * @throws IllegalArgumentException when {@code drain} is negative
         * @throws NullPointerException when {@code drain} is {@code null}
         */
        public Builder drain(Duration drain) {
            if (Objects.requireNonNull(drain, "drain").isNegative()) {
                throw new IllegalArgumentException("drain must not be negative but was " + drain);
            }
            this.drain = drain;
            return this;
        }

        /**
         * Sets how often the run records a point of its time series.
         *
         * @param sampleInterval at least 1 ms
         * @return this builder
         * @throws IllegalArgumentException when {@code sampleInterval} is shorter than 1 ms
         * @throws NullPointerException when {@code sampleInterval} is {@code null}
         */
        public Builder sampleInterval(Duration sampleInterval) {
            if (Objects.requireNonNull(sampleInterval, "sampleInterval").compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("sampleInterval must be at least 1ms but was " + sampleInterval);
            }
            this.sampleInterval = sampleInterval;
            return this;
        }

        /**
         * Sets the priorities and weights of the calls and the bulkhead's reserves.
         *
         * @param callMix the mix, or {@code null} for weight 1 at {@code NORMAL} and no reserve (with a schedule whose
         *     lanes have priorities: each call at its lane's priority)
         * @return this builder
         */
        public Builder callMix(CallMix callMix) {
            this.callMix = callMix;
            return this;
        }

        /**
         * Sets the periods during which the downstream works slower ({@link Slowdown}), as a database slowed by a
         * competing query or a held lock. Not a command-line option: the lab ({@code bulwark-lab}) predicts its
         * slowdown experiment with it, from the slowed capacity it measures. Only a run in
         * {@link ExecutionMode#VIRTUAL_TIME} takes them ({@link #build()} refuses them otherwise).
         *
         * @param slowdowns sorted by start, none overlapping the next; empty for none
         * @return this builder
         * @throws NullPointerException when {@code slowdowns} or one of them is {@code null}
         * @throws IllegalArgumentException when a period starts before the previous one ends
         */
        public Builder slowdowns(List<Slowdown> slowdowns) {
            List<Slowdown> checked = List.copyOf(Objects.requireNonNull(slowdowns, "slowdowns"));
            for (int i = 1; i < checked.size(); i++) {
                if (checked.get(i).from().compareTo(checked.get(i - 1).until()) < 0) {
                    throw new IllegalArgumentException("slowdowns must be sorted and must not overlap, but "
                            + checked.get(i).describe() + " starts before " + checked.get(i - 1).describe() + " ends");
                }
            }
            this.slowdowns = checked;
            return this;
        }

        /**
         * Returns the settings.
         *
         * @return a new immutable value
         * @throws IllegalArgumentException when slowdowns are set and the mode is not
         *     {@link ExecutionMode#VIRTUAL_TIME}
         */
        public SimulationSettings build() {
            if (!slowdowns.isEmpty() && mode != ExecutionMode.VIRTUAL_TIME) {
                throw new IllegalArgumentException("slowdowns need mode VIRTUAL_TIME but the mode is " + mode);
            }
            return new SimulationSettings(this);
        }

        private static Duration positive(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isZero() || value.isNegative()) {
                throw new IllegalArgumentException(name + " must be positive but was " + value);
            }
            return value;
        }
    }
}
