package dev.bulwark.cli.internal.sim;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one run measured. Immutable; the reports are written from it.
 */
public final class SimulationResult {

    private final SimulationSettings settings;
    private final String callStyle;
    private final Duration elapsed;
    private final OutcomeCounts counts;
    private final BulkheadEventCounts bulkheadEvents;
    private final LatencySummary endToEnd;
    private final LatencySummary queueWait;
    private final List<LatencyBucket> endToEndDistribution;
    private final List<LatencyBucket> queueWaitDistribution;
    private final int peakInFlight;
    private final int peakQueued;
    private final LittlesLaw littlesLaw;
    private final long retries;
    private final long timedOutAttempts;
    private final SchedulingLag schedulingLag;
    private final List<Sample> timeline;
    private final String unexpectedFailure;
    private final List<ClassBreakdown> breakdowns;

    private SimulationResult(Builder builder) {
        this.settings = Objects.requireNonNull(builder.settings, "settings");
        this.callStyle = Objects.requireNonNull(builder.callStyle, "callStyle");
        this.elapsed = Objects.requireNonNull(builder.elapsed, "elapsed");
        this.counts = Objects.requireNonNull(builder.counts, "counts");
        this.bulkheadEvents = builder.bulkheadEvents;
        this.endToEnd = Objects.requireNonNull(builder.endToEnd, "endToEnd");
        this.queueWait = Objects.requireNonNull(builder.queueWait, "queueWait");
        this.endToEndDistribution = List.copyOf(builder.endToEndDistribution);
        this.queueWaitDistribution = List.copyOf(builder.queueWaitDistribution);
        this.peakInFlight = builder.peakInFlight;
        this.peakQueued = builder.peakQueued;
        this.littlesLaw = Objects.requireNonNull(builder.littlesLaw, "littlesLaw");
        this.retries = builder.retries;
        this.timedOutAttempts = builder.timedOutAttempts;
        this.schedulingLag = Objects.requireNonNull(builder.schedulingLag, "schedulingLag");
        this.timeline = List.copyOf(builder.timeline);
        this.unexpectedFailure = builder.unexpectedFailure;
        this.breakdowns = List.copyOf(builder.breakdowns);
    }

    static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the settings of the run.
     *
     * @return the settings
     */
    public SimulationSettings settings() {
        return settings;
    }

    /**
     * Returns how calls went through the bulkhead.
     *
     * @return for example {@code callAsync}
     */
    public String callStyle() {
        return callStyle;
    }

    /**
     * Returns how long the run took: the arrival window plus the drain.
     *
     * @return the wall time from the first possible arrival until every call had ended
     */
    public Duration elapsed() {
        return elapsed;
    }

    /**
     * Returns the arrivals and how each call ended.
     *
     * @return the counts
     */
    public OutcomeCounts counts() {
        return counts;
    }

    /**
     * Returns the events the bulkhead reported to its listener.
     *
     * @return the counts, or empty when the run had no bulkhead
     */
    public Optional<BulkheadEventCounts> bulkheadEvents() {
        return Optional.ofNullable(bulkheadEvents);
    }

    /**
     * Returns the latency of completed calls from their arrival to their completion.
     *
     * @return the summary
     */
    public LatencySummary endToEnd() {
        return endToEnd;
    }

    /**
     * Returns how long admitted calls waited for a slot, as the bulkhead reported it.
     *
     * @return the summary; empty without a bulkhead
     */
    public LatencySummary queueWait() {
        return queueWait;
    }

    /**
     * Returns the distribution of end-to-end latencies of completed calls.
     *
     * @return logarithmic buckets
     */
    public List<LatencyBucket> endToEndDistribution() {
        return endToEndDistribution;
    }

    /**
     * Returns the distribution of queue waits of admitted calls.
     *
     * @return logarithmic buckets; empty without a bulkhead
     */
    public List<LatencyBucket> queueWaitDistribution() {
        return queueWaitDistribution;
    }

    /**
     * Returns the most calls that were in the downstream at once.
     *
     * @return at least 0
     */
    public int peakInFlight() {
        return peakInFlight;
    }

    /**
     * Returns the longest the bulkhead's queue was seen.
     *
     * @return at least 0
     */
    public int peakQueued() {
        return peakQueued;
    }

    /**
     * Returns the Little's-law check of the downstream.
     *
     * @return the check
     */
    public LittlesLaw littlesLaw() {
        return littlesLaw;
    }

    /**
     * Returns how many retries the retry policy made, as its listener reported them.
     *
     * @return at least 0; 0 without a retry
     */
    public long retries() {
        return retries;
    }

    /**
     * Returns how many attempts timed out, as the timeout policy's listener reported them: the calls that ended
     * timed out plus the timed-out attempts that were retried.
     *
     * @return at least 0; 0 without a timeout
     */
    public long timedOutAttempts() {
        return timedOutAttempts;
    }

    /**
     * Returns how late the simulator itself was on this machine.
     *
     * @return the lag of arrivals and completions
     */
    public SchedulingLag schedulingLag() {
        return schedulingLag;
    }

    /**
     * Returns the run's time series.
     *
     * @return samples in time order, the first at time 0 and the last at the end
     */
    public List<Sample> timeline() {
        return timeline;
    }

    /**
     * Returns the first exception of an unexpected kind that ended a call.
     *
     * @return its description, or empty when every call ended as expected
     */
    public Optional<String> unexpectedFailure() {
        return Optional.ofNullable(unexpectedFailure);
    }

    /**
     * Returns the outcomes split by class of call: by priority with {@code --priority-mix}, then by weight with
     * {@code --weights}.
     *
     * @return the breakdowns, empty when the calls were all alike
     */
    public List<ClassBreakdown> breakdowns() {
        return breakdowns;
    }

    /**
     * Returns the goodput: completed calls per second of the whole run.
     *
     * @return calls per second
     */
    public double goodput() {
        return counts.count(CallOutcome.COMPLETED) / seconds(elapsed);
    }

    /**
     * Returns the offered rate: arrivals per second of the arrival window.
     *
     * @return calls per second
     */
    public double offeredRate() {
        return counts.arrivals() / seconds(settings.duration());
    }

    /**
     * Returns how much longer completed calls took in the downstream than an unloaded downstream needs on
     * average.
     *
     * @return mean time in the downstream divided by the mean service time; {@code NaN} if nothing completed
     */
    public double slowdown() {
        return littlesLaw.meanTimeInDownstreamMillis() / (settings.serviceTime().meanNanos() / 1e6);
    }

    private static double seconds(Duration duration) {
        return Math.max(1e-9, duration.toNanos() / 1e9);
    }

    /** Assembles a result; used by {@link Simulation}. Not thread-safe. */
    static final class Builder {
        private SimulationSettings settings;
        private String callStyle;
        private Duration elapsed;
        private OutcomeCounts counts;
        private BulkheadEventCounts bulkheadEvents;
        private LatencySummary endToEnd;
        private LatencySummary queueWait;
        private List<LatencyBucket> endToEndDistribution = List.of();
        private List<LatencyBucket> queueWaitDistribution = List.of();
        private int peakInFlight;
        private int peakQueued;
        private LittlesLaw littlesLaw;
        private long retries;
        private long timedOutAttempts;
        private SchedulingLag schedulingLag;
        private List<Sample> timeline = List.of();
        private String unexpectedFailure;
        private final List<ClassBreakdown> breakdowns = new java.util.ArrayList<>();

        Builder settings(SimulationSettings value) {
            settings = value;
            return this;
        }

        Builder callStyle(String value) {
            callStyle = value;
            return this;
        }

        Builder elapsed(Duration value) {
            elapsed = value;
            return this;
        }

        Builder counts(OutcomeCounts value) {
            counts = value;
            return this;
        }

        Builder bulkheadEvents(BulkheadEventCounts value) {
            bulkheadEvents = value;
            return this;
        }

        Builder endToEnd(LatencySummary summary, List<LatencyBucket> distribution) {
            endToEnd = summary;
            endToEndDistribution = distribution;
            return this;
        }

        Builder queueWait(LatencySummary summary, List<LatencyBucket> distribution) {
            queueWait = summary;
            queueWaitDistribution = distribution;
            return this;
        }

        Builder peaks(int inFlight, int queued) {
            peakInFlight = inFlight;
            peakQueued = queued;
            return this;
        }

        Builder littlesLaw(LittlesLaw value) {
            littlesLaw = value;
            return this;
        }

        Builder policyEvents(long retryCount, long timedOutAttemptCount) {
            retries = retryCount;
            timedOutAttempts = timedOutAttemptCount;
            return this;
        }

        Builder schedulingLag(SchedulingLag value) {
            schedulingLag = value;
            return this;
        }

        Builder timeline(List<Sample> value) {
            timeline = value;
            return this;
        }

        Builder unexpectedFailure(String value) {
            unexpectedFailure = value;
            return this;
        }

        Builder breakdown(ClassBreakdown value) {
            breakdowns.add(value);
            return this;
        }

        SimulationResult build() {
            return new SimulationResult(this);
        }
    }
}
