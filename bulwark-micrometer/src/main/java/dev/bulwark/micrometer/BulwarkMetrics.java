package dev.bulwark.micrometer;

import static dev.bulwark.micrometer.MeterNames.TAG_EXCEPTION;
import static dev.bulwark.micrometer.MeterNames.TAG_NAME;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;
import static dev.bulwark.micrometer.MeterNames.TAG_PHI;
import static dev.bulwark.micrometer.MeterNames.TAG_PRIORITY;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Retry;
import dev.bulwark.Subscription;
import dev.bulwark.Timeout;
import dev.bulwark.internal.binding.FallbackCounters;
import dev.bulwark.internal.stats.TimeWindow;
import dev.bulwark.micrometer.internal.BindingOptions;
import dev.bulwark.micrometer.internal.Bindings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Binds Bulwark's policies to a Micrometer {@link MeterRegistry}: each bound bulkhead, retry and timeout gets
 * gauges, counters and timers tagged with its {@value MeterNames#TAG_NAME} (see {@link MeterNames} for the list),
 * and a {@link FallbackCounter} counts the failures a {@link dev.bulwark.Fallback} turned into values.
 *
 * <pre>{@code
 * BulwarkMetrics metrics = BulwarkMetrics.of(meterRegistry);
 * Subscription all = metrics.bind(bulkheads);            // every bulkhead of the registry, now and later
 * metrics.bind(retry);
 * Fallback<Stock> fallback = Fallback.of(Stock.UNKNOWN).onFallback(metrics.fallbackCounter("stock"));
 * }</pre>
 *
 * <p><b>Lifetime.</b> Binding attaches a listener to the policy ({@code addListener}) and registers meters. The
 * returned {@link Subscription} unbinds: it detaches the listener and removes the meters. A binding never keeps its
 * policy alive: gauges read a bulkhead through a weak reference and the binding refers to the policy weakly, so a
 * policy its owner drops is garbage-collected, after which its meters are removed too (by a daemon cleaner thread,
 * some time after the collection; gauges read {@code NaN} in between).
 *
 * <p><b>One binding per name.</b> Micrometer identifies a meter by name and tags, so two policies of the same kind
 * and name would share meters. Binding a second live policy of the same kind and name through the same
 * {@code BulwarkMetrics}, or the same policy twice, therefore fails with {@link IllegalStateException}; once the
 * earlier binding is closed, or its policy collected, the name can be bound again. Use one {@code BulwarkMetrics}
 * per registry (bindings through different instances are not checked against each other).
 *
 * <p><b>Cost and timing.</b> A bound bulkhead records nothing into Micrometer per call: its calls by outcome
 * ({@value MeterNames#BULKHEAD_CALLS}, exact) are counted in the binding's own counters (the admissions, counted on
 * every call, in per-thread cells written without an atomic read-modify-write) and everything else in its own
 * statistics (striped counters and lock-free histograms), read at scrape by function meters ({@code FunctionCounter},
 * {@code FunctionTimer}, {@code TimeGauge}) and gauges. Every count is exact once the calls that made it have
 * returned, except the {@code normal} admissions of {@value MeterNames#BULKHEAD_PRIORITY_CALLS}, derived at scrape
 * (see there). Maxima and percentiles cover a recent window, rotating like a Micrometer timer's (2 minutes in 3
 * buffers by default, see {@link Builder#distributionStatisticExpiry}); counts and totals are cumulative. A clock
 * reading costs about as much as a whole uncontended call, so by default an in-process bulkhead times only a sample
 * of executions: one call in 1 to 256 (a power of two), chosen from the call rate so that between 1,000 and 2,000
 * calls a second are timed, and every call when there are fewer than about 2,000 a second. The execution timer's
 * count stays exact; its total is the sampled mean times the exact count; max and percentiles are those of the
 * sample. Waits are always exact (a call that found a free slot waited 0, which needs no clock).
 * {@link Builder#exactTiming(boolean) exactTiming(true)} times every execution instead, at the price of two clock
 * readings per call. In a Prometheus registry, bulkheads also publish histograms a fleet can aggregate
 * ({@value MeterNames#BULKHEAD_WAIT_DURATION}, {@value MeterNames#BULKHEAD_EXECUTION_DURATION}; see
 * {@link Builder#histograms(boolean)}). Retries and timeouts are bound with ordinary counters and timers; they record
 * per event.
 * Bulwark takes no lock to record. Thread-safe.
 */
public final class BulwarkMetrics {

    private static final Set<String> RESERVED_TAG_KEYS = Set.of(TAG_NAME, TAG_OUTCOME, TAG_EXCEPTION, TAG_PHI,
            TAG_PRIORITY);

    /**
     * The upper bounds of the histograms' buckets unless {@link Builder#histogramBuckets} says otherwise: 100 µs,
     * 250 µs, 500 µs, 1, 2.5, 5, 10, 25, 50, 100, 250 and 500 ms, 1, 2.5, 5 and 10 s (16 bounds and {@code +Inf}).
     */
    public static final List<Duration> DEFAULT_HISTOGRAM_BUCKETS = List.of(
            Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
            Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofMillis(2_500), Duration.ofSeconds(5), Duration.ofSeconds(10));

    private static final int MAX_HISTOGRAM_BUCKETS = 60;

    private final Bindings bindings;
    private final FallbackCounters<FallbackCounter> fallbackCounters = new FallbackCounters<>();

    private BulwarkMetrics(MeterRegistry registry, Tags commonTags, BindingOptions options) {
        this.bindings = new Bindings(registry, commonTags, options);
    }

    /**
     * Starts configuring a binder for a registry; {@link #of(MeterRegistry)} and
     * {@link #of(MeterRegistry, Iterable)} are its shorthands for the defaults.
     *
     * @param registry where the meters are registered
     * @return a builder with no common tags and sampled execution timing
     * @throws NullPointerException when {@code registry} is {@code null}
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(Objects.requireNonNull(registry, "registry"));
    }

    /**
     * Creates the binder for a registry.
     *
     * @param registry where the meters are registered
     * @return a new binder
     * @throws NullPointerException when {@code registry} is {@code null}
     */
    public static BulwarkMetrics of(MeterRegistry registry) {
        return of(registry, Tags.empty());
    }

    /**
     * Creates the binder for a registry, adding {@code tags} to every meter (an application or region, say).
     *
     * @param registry where the meters are registered
     * @param tags tags added to every meter
     * @return a new binder
     * @throws NullPointerException when an argument is {@code null}
     * @throws IllegalArgumentException when a tag uses a key this module sets itself ({@value MeterNames#TAG_NAME},
     *     {@value MeterNames#TAG_OUTCOME}, {@value MeterNames#TAG_EXCEPTION}, {@value MeterNames#TAG_PHI} or
     *     {@value MeterNames#TAG_PRIORITY})
     */
    public static BulwarkMetrics of(MeterRegistry registry, Iterable<Tag> tags) {
        return builder(registry).tags(tags).build();
    }

    private static Tags checkedTags(Iterable<Tag> tags) {
        Objects.requireNonNull(tags, "tags");
        Tags commonTags = Tags.of(tags);
        for (Tag tag : commonTags) {
            if (RESERVED_TAG_KEYS.contains(tag.getKey())) {
                throw new IllegalArgumentException("tags must not use the key '" + tag.getKey() + "', which Bulwark "
                        + "sets on its meters, but were " + commonTags);
            }
        }
        return commonTags;
    }

    /**
     * Returns the registry the meters go to.
     *
     * @return the registry
     */
    public MeterRegistry registry() {
        return bindings.registry();
    }

    /**
     * Binds a bulkhead: the gauges {@value MeterNames#BULKHEAD_EXECUTING}, {@value MeterNames#BULKHEAD_QUEUED},
     * {@value MeterNames#BULKHEAD_MAX_CONCURRENCY} and {@value MeterNames#BULKHEAD_MAX_QUEUE}, the function counters
     * {@value MeterNames#BULKHEAD_CALLS} (one series per outcome) and
     * {@value MeterNames#BULKHEAD_PRIORITY_CALLS} (per priority and outcome), the function timers
     * {@value MeterNames#BULKHEAD_WAIT} and {@value MeterNames#BULKHEAD_EXECUTION}, and the time gauges
     * {@value MeterNames#BULKHEAD_WAIT_MAX}, {@value MeterNames#BULKHEAD_EXECUTION_MAX} and
     * {@value MeterNames#BULKHEAD_EXECUTION_PERCENTILE}. Calls in flight are reported from their next event on.
     *
     * @param bulkhead the bulkhead (any implementation)
     * @return the binding; closing it detaches the listener and removes the meters
     * @throws NullPointerException when {@code bulkhead} is {@code null}
     * @throws IllegalStateException when a live bulkhead of the same name is already bound through this instance
     */
    public Subscription bind(Bulkhead bulkhead) {
        return bindings.bind(bulkhead);
    }

    /**
     * Binds every bulkhead of a registry: those in it now and those added later (on the adding thread). A bulkhead
     * of the registry that is already bound through this instance is skipped, with a warning logged through
     * {@link System.Logger}. A bulkhead removed from the registry is unbound at once: its listener is detached and
     * its meters are removed.
     *
     * @param bulkheads the registry
     * @return the binding; closing it stops binding new bulkheads and unbinds all those it bound
     * @throws NullPointerException when {@code bulkheads} is {@code null}
     */
    public Subscription bind(Bulkheads bulkheads) {
        return bindings.bind(bulkheads);
    }

    /**
     * Binds a partitioned (per-key) bulkhead: the counter {@value MeterNames#PARTITIONED_CALLS} (its calls over all
     * partitions, one series per outcome, {@code rejected.partition_limit} among them), the gauges
     * {@value MeterNames#PARTITIONED_PARTITIONS}, {@value MeterNames#PARTITIONED_MAX_PARTITIONS},
     * {@value MeterNames#PARTITIONED_EXECUTING} and {@value MeterNames#PARTITIONED_QUEUED}, and the function counter
     * {@value MeterNames#PARTITIONED_EVICTIONS}, all tagged with its name and never with a key (a flood of keys adds
     * no series). Attaches a listener ({@link PartitionedBulkhead#addListener}), so its partitions read the clock to
     * time their calls from then on. Its partitions are not bound as bulkheads; bind one yourself if a key matters.
     *
     * @param partitioned the partitioned bulkhead
     * @return the binding; closing it detaches the listener and removes the meters
     * @throws NullPointerException when {@code partitioned} is {@code null}
     * @throws IllegalStateException when a live partitioned bulkhead of the same name is already bound through this
     *     instance
     */
    public Subscription bind(PartitionedBulkhead<?> partitioned) {
        return bindings.bind(partitioned);
    }

    /**
     * Binds a retry: the counters {@value MeterNames#RETRY_CALLS} and {@value MeterNames#RETRY_RETRIES}.
     *
     * @param retry the retry
     * @return the binding; closing it detaches the listener and removes the meters
     * @throws NullPointerException when {@code retry} is {@code null}
     * @throws IllegalStateException when a live retry of the same name is already bound through this instance
     */
    public Subscription bind(Retry retry) {
        return bindings.bind(retry);
    }

    /**
     * Binds a timeout: the counter {@value MeterNames#TIMEOUT_CALLS} and the timer
     * {@value MeterNames#TIMEOUT_EXECUTION}.
     *
     * @param timeout the timeout
     * @return the binding; closing it detaches the listener and removes the meters
     * @throws NullPointerException when {@code timeout} is {@code null}
     * @throws IllegalStateException when a live timeout of the same name is already bound through this instance
     */
    public Subscription bind(Timeout timeout) {
        return bindings.bind(timeout);
    }

    /**
     * Returns the counter of fallbacks called {@code name}, to pass to {@link dev.bulwark.Fallback#onFallback}: it
     * counts {@value MeterNames#FALLBACK_USED} by exception type. A {@code Fallback} is an immutable value without a
     * name, so the name is given here. Asking again for the same name returns the same counter until it is closed.
     *
     * @param name the name tag of the counter, not blank
     * @return the counter
     * @throws NullPointerException when {@code name} is {@code null}
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public FallbackCounter fallbackCounter(String name) {
        return fallbackCounters.get(name, (key, forget) -> new FallbackCounter(bindings.registry(),
                bindings.tags(key), forget));
    }

    @Override
    public String toString() {
        return "BulwarkMetrics[" + bindings.registry().getClass().getSimpleName() + "]";
    }

    /** Configures a {@link BulwarkMetrics}. Not thread-safe; the binder it builds is. */
    public static final class Builder {

        private final MeterRegistry registry;
        private Tags tags = Tags.empty();
        private boolean exactTiming;
        private Duration expiry = TimeWindow.DEFAULT_EXPIRY;
        private int bufferLength = TimeWindow.DEFAULT_BUFFER_LENGTH;
        private ObservationRegistry observationRegistry;
        private boolean histograms = true;
        private List<Duration> histogramBuckets = DEFAULT_HISTOGRAM_BUCKETS;

        private Builder(MeterRegistry registry) {
            this.registry = registry;
        }

        /**
         * Adds {@code tags} to every meter (an application or region, say). Replaces tags given before.
         *
         * @param tags the common tags
         * @return this builder
         * @throws NullPointerException when {@code tags} is {@code null}
         * @throws IllegalArgumentException when a tag uses a key this module sets itself
         *     ({@value MeterNames#TAG_NAME}, {@value MeterNames#TAG_OUTCOME}, {@value MeterNames#TAG_EXCEPTION},
         *     {@value MeterNames#TAG_PHI} or {@value MeterNames#TAG_PRIORITY})
         */
        public Builder tags(Iterable<Tag> tags) {
            this.tags = checkedTags(tags);
            return this;
        }

        /**
         * Chooses whether bound bulkheads time every execution ({@code true}) or a sample sized from the call rate
         * ({@code false}, the default). Exact timing costs two clock readings per call; counts are exact either way.
         *
         * @param exactTiming {@code true} to time every execution
         * @return this builder
         */
        public Builder exactTiming(boolean exactTiming) {
            this.exactTiming = exactTiming;
            return this;
        }

        /**
         * Sets how long the bulkheads' maxima and percentiles ({@value MeterNames#BULKHEAD_WAIT_MAX},
         * {@value MeterNames#BULKHEAD_EXECUTION_MAX}, {@value MeterNames#BULKHEAD_EXECUTION_PERCENTILE}) remember a
         * value, like Micrometer's {@code DistributionStatisticConfig.Builder.expiry}: a value leaves them at most
         * this long after it was recorded. Default 2 minutes, as Micrometer's. Counts and totals are cumulative
         * whatever the window.
         *
         * @param expiry the window, positive
         * @return this builder
         * @throws NullPointerException when {@code expiry} is {@code null}
         * @throws IllegalArgumentException when {@code expiry} is zero or negative
         */
        public Builder distributionStatisticExpiry(Duration expiry) {
            this.expiry = TimeWindow.checkExpiry(expiry);
            return this;
        }

        /**
         * Sets how many buffers the window of maxima and percentiles rotates through, like Micrometer's
         * {@code DistributionStatisticConfig.Builder.bufferLength}: the window moves on by {@code expiry /
         * bufferLength} at a time. Default 3, as Micrometer's.
         *
         * @param bufferLength the number of buffers, 1 to 60
         * @return this builder
         * @throws IllegalArgumentException when {@code bufferLength} is not between 1 and 60
         */
        public Builder distributionStatisticBufferLength(int bufferLength) {
            this.bufferLength = TimeWindow.checkBufferLength(bufferLength);
            return this;
        }

        /**
         * Makes bound bulkheads observe, in {@code observationRegistry}, every call that waited in their queue or
         * was refused: a {@value BulkheadObservationContext#NAME} observation (context
         * {@link BulkheadObservationContext}) with the low-cardinality key values
         * {@value BulkheadObservationContext#KEY_NAME}, {@value BulkheadObservationContext#KEY_OUTCOME} and
         * {@value BulkheadObservationContext#KEY_REASON} and the high-cardinality
         * {@value BulkheadObservationContext#KEY_WAIT}, started and stopped at once (its own duration is not the wait;
         * the wait is the key value) as a child of the caller's current observation, and only when there is one:
         * with Micrometer Tracing, a span in the caller's trace. For a call that queued, that observation is captured
         * on the caller's thread when the call starts to wait, so the wait's outcome is observed under it whichever
         * thread decides it (the releaser's, the timer's, the canceller's; see docs/observability.md).
         * A call that found a free slot makes no observation and pays nothing for this; a partitioned bulkhead's
         * calls are not observed. Off by default ({@code null}).
         *
         * @param observationRegistry the registry, or {@code null} to make no observations
         * @return this builder
         */
        public Builder observationRegistry(ObservationRegistry observationRegistry) {
            this.observationRegistry = observationRegistry;
            return this;
        }

        /**
         * Chooses whether bound bulkheads publish histograms of their waits and executions in Prometheus registries
         * ({@value MeterNames#BULKHEAD_WAIT_DURATION} and {@value MeterNames#BULKHEAD_EXECUTION_DURATION}, see
         * there): on by default. Each bulkhead then adds {@code 4 × (buckets + 1)} series (the wait by its three
         * outcomes, and the execution); turn them off where series are paid for, or choose fewer buckets with
         * {@link #histogramBuckets}. A registry that is not a Prometheus one (nor a composite holding one) gets no
         * histogram whatever this says, and its bulkheads record nothing for them.
         *
         * @param histograms {@code false} to publish no histogram
         * @return this builder
         */
        public Builder histograms(boolean histograms) {
            this.histograms = histograms;
            return this;
        }

        /**
         * Sets the upper bounds of the histograms' buckets (each inclusive; a {@code +Inf} bucket is always added).
         * Default {@link BulwarkMetrics#DEFAULT_HISTOGRAM_BUCKETS}, 100 µs to 10 s.
         *
         * @param upperBounds 1 to 60 positive durations in ascending order, no two equal
         * @return this builder
         * @throws NullPointerException when {@code upperBounds} or one of them is {@code null}
         * @throws IllegalArgumentException when {@code upperBounds} is empty, longer than 60, not strictly ascending,
         *     or holds a zero or negative duration
         */
        public Builder histogramBuckets(Duration... upperBounds) {
            Objects.requireNonNull(upperBounds, "upperBounds");
            if (upperBounds.length == 0 || upperBounds.length > MAX_HISTOGRAM_BUCKETS) {
                throw new IllegalArgumentException("upperBounds: between 1 and " + MAX_HISTOGRAM_BUCKETS
                        + " bucket bounds expected, got " + upperBounds.length);
            }
            Duration previous = Duration.ZERO;
            for (int i = 0; i < upperBounds.length; i++) {
                Duration bound = Objects.requireNonNull(upperBounds[i], "upperBounds[" + i + "]");
                if (bound.compareTo(previous) <= 0) {
                    throw new IllegalArgumentException("upperBounds[" + i + "]: " + bound + " must be positive and"
                            + " greater than the bound before it (" + previous + ")");
                }
                previous = bound;
            }
            this.histogramBuckets = List.of(upperBounds);
            return this;
        }

        /**
         * Builds the binder.
         *
         * @return a new binder with this configuration
         */
        public BulwarkMetrics build() {
            return new BulwarkMetrics(registry, tags, new BindingOptions(exactTiming, expiry, bufferLength,
                    observationRegistry, histograms ? histogramBuckets : null));
        }
    }
}
