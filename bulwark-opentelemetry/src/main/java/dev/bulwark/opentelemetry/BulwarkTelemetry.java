package dev.bulwark.opentelemetry;

import dev.bulwark.Bulkhead;
import dev.bulwark.Bulkheads;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Retry;
import dev.bulwark.Subscription;
import dev.bulwark.Ticker;
import dev.bulwark.Timeout;
import dev.bulwark.internal.binding.FallbackCounters;
import dev.bulwark.internal.stats.TimeWindow;
import dev.bulwark.opentelemetry.internal.BindingOptions;
import dev.bulwark.opentelemetry.internal.Bindings;
import dev.bulwark.opentelemetry.internal.Instruments;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.Objects;

/**
 * Reports Bulwark's bulkheads, retries, timeouts and fallbacks through the OpenTelemetry metrics API: the same facts
 * as the Micrometer module, named by OpenTelemetry's conventions (see {@link InstrumentNames} for every instrument,
 * unit and attribute), under the instrumentation scope {@value InstrumentNames#SCOPE}.
 *
 * <pre>{@code
 * BulwarkTelemetry telemetry = BulwarkTelemetry.create(openTelemetry);
 * Subscription all = telemetry.bind(bulkheads);           // every bulkhead of the registry, now and later
 * telemetry.bind(retry);
 * Fallback<Stock> fallback = Fallback.of(Stock.UNKNOWN).onFallback(telemetry.fallbackCounter("stock"));
 * }</pre>
 *
 * <p><b>Cost.</b> Values that are read (calls holding a slot, waiting, the limits) are asynchronous instruments the
 * SDK observes at collection; admissions are counted in cells owned by the calling threads, refusals and
 * cancellations in {@link java.util.concurrent.atomic.LongAdder}s, all reported by asynchronous counters; only
 * durations are recorded, into histograms with attribute sets built at binding. A call through a bound bulkhead
 * allocates nothing and takes no lock here.
 *
 * <p><b>Sampled lease durations.</b> A clock reading costs about as much as a whole uncontended call, so by default
 * an in-process bulkhead times a sample of its leases, as the Micrometer binding does: every lease while calls are
 * few (below about 2,000 a second), else one in 2 to 256, chosen at random so that 1,000 to 2,000 leases a second are
 * timed. {@value InstrumentNames#BULKHEAD_LEASE_DURATION} then records the timed leases only: its distribution
 * (buckets, mean, min, max) estimates that of all leases, and its count is the sample's size; the exact number of
 * leases is the {@code admitted} point of {@value InstrumentNames#BULKHEAD_CALLS}. Waits in the queue are always
 * recorded in full. {@code builder(openTelemetry).exactTiming(true).build()} records every lease, for two clock
 * readings per call.
 *
 * <p><b>Lifetime.</b> Binding attaches a listener to the policy and registers callbacks; the returned
 * {@link Subscription} detaches the listener and removes the callbacks (their series stop being exported; the
 * histograms are shared and keep the values already recorded, as OpenTelemetry histograms do). A binding refers to
 * its policy only weakly: a policy its owner drops is collected, after which its callbacks are removed too.
 *
 * <p><b>One binding per name.</b> Binding a second live policy of the same kind and name through the same
 * {@code BulwarkTelemetry}, or the same policy twice, fails with {@link IllegalStateException}; once the earlier
 * binding is closed or its policy collected, the name can be bound again. Use one instance per
 * {@link OpenTelemetry}. Thread-safe.
 */
public final class BulwarkTelemetry {

    private final Bindings bindings;
    private final FallbackCounters<FallbackCounter> fallbackCounters = new FallbackCounters<>();

    private BulwarkTelemetry(OpenTelemetry openTelemetry, BindingOptions options) {
        this.bindings = new Bindings(new Instruments(openTelemetry), options);
    }

    /**
     * Creates the binder for an {@link OpenTelemetry} instance (its meter provider), with sampled lease durations;
     * the same as {@code builder(openTelemetry).build()}.
     *
     * @param openTelemetry where the instruments are created
     * @return a new binder
     * @throws NullPointerException when {@code openTelemetry} is {@code null}
     */
    public static BulwarkTelemetry create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * Starts configuring a binder for an {@link OpenTelemetry} instance.
     *
     * @param openTelemetry where the instruments are created
     * @return a new builder, with sampled lease durations
     * @throws NullPointerException when {@code openTelemetry} is {@code null}
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /**
     * Binds a bulkhead: {@value InstrumentNames#BULKHEAD_ACTIVE_LEASES},
     * {@value InstrumentNames#BULKHEAD_QUEUED_CALLS}, {@value InstrumentNames#BULKHEAD_CONCURRENCY_LIMIT},
     * {@value InstrumentNames#BULKHEAD_QUEUE_LIMIT}, {@value InstrumentNames#BULKHEAD_CALLS},
     * {@value InstrumentNames#BULKHEAD_PRIORITY_CALLS}, {@value InstrumentNames#BULKHEAD_TIME_IN_QUEUE} and
     * {@value InstrumentNames#BULKHEAD_LEASE_DURATION}, with {@code bulwark.bulkhead.name}. Calls in flight are
     * reported from their next event on.
     *
     * @param bulkhead the bulkhead (any implementation)
     * @return the binding; closing it detaches the listener and removes the callbacks
     * @throws NullPointerException when {@code bulkhead} is {@code null}
     * @throws IllegalStateException when a live bulkhead of the same name is already bound through this instance
     */
    public Subscription bind(Bulkhead bulkhead) {
        return bindings.bind(bulkhead);
    }

    /**
     * Binds a partitioned (per-key) bulkhead: the asynchronous counter {@value InstrumentNames#PARTITIONED_CALLS}
     * (its calls over all partitions by outcome and rejection reason, {@code partition_limit} among them), the
     * up-down counters {@value InstrumentNames#PARTITIONED_PARTITIONS},
     * {@value InstrumentNames#PARTITIONED_PARTITION_LIMIT}, {@value InstrumentNames#PARTITIONED_ACTIVE_LEASES} and
     * {@value InstrumentNames#PARTITIONED_QUEUED_CALLS}, and the counter
     * {@value InstrumentNames#PARTITIONED_EVICTIONS}, all with {@code bulwark.partitioned.name} and never a key (a
     * flood of keys adds no series). Attaches a listener ({@link PartitionedBulkhead#addListener}), so its partitions
     * read the clock to time their calls from then on.
     *
     * @param partitioned the partitioned bulkhead
     * @return the binding; closing it detaches the listener and removes the callbacks
     * @throws NullPointerException when {@code partitioned} is {@code null}
     * @throws IllegalStateException when a live partitioned bulkhead of the same name is already bound through this
     *     instance
     */
    public Subscription bind(PartitionedBulkhead<?> partitioned) {
        return bindings.bind(partitioned);
    }

    /**
     * Binds every bulkhead of a registry: those in it now and those added later (on the adding thread). A bulkhead
     * already bound through this instance is skipped, with a warning through {@link System.Logger}; a bulkhead
     * removed from the registry is unbound.
     *
     * @param bulkheads the registry
     * @return the binding; closing it stops binding new bulkheads and unbinds all those it bound
     * @throws NullPointerException when {@code bulkheads} is {@code null}
     */
    public Subscription bind(Bulkheads bulkheads) {
        return bindings.bind(bulkheads);
    }

    /**
     * Binds a retry: {@value InstrumentNames#RETRY_CALLS} and {@value InstrumentNames#RETRY_RETRIES}, with
     * {@code bulwark.retry.name}.
     *
     * @param retry the retry
     * @return the binding; closing it detaches the listener and removes the callbacks
     * @throws NullPointerException when {@code retry} is {@code null}
     * @throws IllegalStateException when a live retry of the same name is already bound through this instance
     */
    public Subscription bind(Retry retry) {
        return bindings.bind(retry);
    }

    /**
     * Binds a timeout: {@value InstrumentNames#TIMEOUT_CALLS} and {@value InstrumentNames#TIMEOUT_CALL_DURATION},
     * with {@code bulwark.timeout.name}.
     *
     * @param timeout the timeout
     * @return the binding; closing it detaches the listener and removes the callbacks
     * @throws NullPointerException when {@code timeout} is {@code null}
     * @throws IllegalStateException when a live timeout of the same name is already bound through this instance
     */
    public Subscription bind(Timeout timeout) {
        return bindings.bind(timeout);
    }

    /**
     * Returns the counter of fallbacks called {@code name}, to pass to {@link dev.bulwark.Fallback#onFallback}: it
     * counts {@value InstrumentNames#FALLBACK_CALLS} by {@code error.type}. Asking again for the same name returns
     * the same counter until it is closed.
     *
     * @param name the {@code bulwark.fallback.name} of the counter, not blank
     * @return the counter
     * @throws NullPointerException when {@code name} is {@code null}
     * @throws IllegalArgumentException when {@code name} is blank
     */
    public FallbackCounter fallbackCounter(String name) {
        return fallbackCounters.get(name, (key, forget) -> new FallbackCounter(bindings.instruments().meter(), key,
                forget));
    }

    @Override
    public String toString() {
        return "BulwarkTelemetry[" + InstrumentNames.SCOPE + "]";
    }

    /**
     * Configures a {@link BulwarkTelemetry}. Not thread-safe; {@link #build()} may be called more than once, each time
     * making an independent binder.
     */
    public static final class Builder {

        private final OpenTelemetry openTelemetry;
        private boolean exactTiming;
        private Duration expiry = TimeWindow.DEFAULT_EXPIRY;
        private int bufferLength = TimeWindow.DEFAULT_BUFFER_LENGTH;
        private Ticker ticker = Ticker.system();
        private boolean spanEvents;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = openTelemetry;
        }

        /**
         * Chooses whether bulkheads time every lease (two clock readings per call, every lease recorded into
         * {@value InstrumentNames#BULKHEAD_LEASE_DURATION}) instead of a sample (the default; see the class
         * documentation).
         *
         * @param exactTiming {@code true} to time and record every lease
         * @return this builder
         */
        public Builder exactTiming(boolean exactTiming) {
            this.exactTiming = exactTiming;
            return this;
        }

        /**
         * Sets how long the maxima and percentiles gauges ({@value InstrumentNames#BULKHEAD_TIME_IN_QUEUE_MAX},
         * {@value InstrumentNames#BULKHEAD_LEASE_DURATION_MAX},
         * {@value InstrumentNames#BULKHEAD_LEASE_DURATION_PERCENTILE}) remember a value, as Micrometer's
         * {@code distributionStatisticExpiry}: a value leaves them at most this long after it was recorded. Default
         * 2 minutes, as Micrometer's. The histograms and counters are not windowed.
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
         * Sets how many buffers the window of maxima and percentiles rotates through, as Micrometer's
         * {@code distributionStatisticBufferLength}: the window moves on by {@code expiry / bufferLength} at a time.
         * Default 3, as Micrometer's.
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
         * Sets the clock the windows of maxima and percentiles rotate on (default {@link Ticker#system()}); tests
         * pass a fake one. It is read when a gauge is collected and when a timed lease or a queued wait is recorded,
         * never for an untimed call.
         *
         * @param ticker the clock
         * @return this builder
         * @throws NullPointerException when {@code ticker} is {@code null}
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Chooses whether bound bulkheads add a {@value InstrumentNames#BULKHEAD_ADMISSION_EVENT} event to the current
         * span ({@code Span.current()}) for every call that waited in their queue or was refused, with the attributes
         * {@code bulwark.bulkhead.name}, {@code bulwark.bulkhead.outcome}, {@code bulwark.bulkhead.rejection_reason}
         * (refusals only) and {@code bulwark.bulkhead.time_in_queue} (seconds). Only a recording span gets one. The
         * span is always the caller's: for a call that queued, the span current on the caller's thread when the call
         * started to wait, whichever thread decides the wait's outcome (see docs/opentelemetry.md); for a refusal of
         * a call that did not queue, the span current on the caller's thread. A call that found a free slot adds no
         * event and pays nothing for this; a partitioned bulkhead's calls add none. Off by default.
         *
         * @param spanEvents {@code true} to add the events
         * @return this builder
         */
        public Builder spanEvents(boolean spanEvents) {
            this.spanEvents = spanEvents;
            return this;
        }

        /**
         * Makes the binder.
         *
         * @return a new binder
         */
        public BulwarkTelemetry build() {
            return new BulwarkTelemetry(openTelemetry, new BindingOptions(exactTiming, expiry, bufferLength, ticker,
                    spanEvents));
        }
    }
}
