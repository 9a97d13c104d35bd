package dev.bulwark.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The names, units and attributes of the instruments {@link BulwarkTelemetry} creates, for dashboards, alerts and
 * SDK views.
 *
 * <p>Names follow OpenTelemetry's semantic-convention style for limiters and pools: a {@code bulwark.} namespace,
 * lower-case dot-separated components with {@code snake_case} words, no unit in the name (the unit is {@code s} or an
 * annotation such as <code>{call}</code>), no {@code _total} suffix, and attributes namespaced by the policy kind.
 * They mirror ASP.NET Core's rate-limiting metrics ({@code aspnetcore.rate_limiting.active_request_leases},
 * {@code queued_requests}, {@code request.time_in_queue}, {@code request_lease.duration}, {@code requests}) and the
 * {@code db.client.connection.*} pool metrics ({@code .count}, {@code .max}, {@code .wait_time}): a bulkhead slot is a
 * lease, a waiting call is queued. Values that are read (counts, limits and cumulative totals) are asynchronous
 * instruments observed at collection; durations are histograms recorded per call.
 */
public final class InstrumentNames {

    /** The instrumentation scope name of every instrument. */
    public static final String SCOPE = "dev.bulwark";

    /** Attribute on every bulkhead instrument: the bulkhead's name. */
    public static final AttributeKey<String> BULKHEAD_NAME = AttributeKey.stringKey("bulwark.bulkhead.name");
    /**
     * Attribute on {@value #BULKHEAD_CALLS}, {@value #BULKHEAD_PRIORITY_CALLS} and {@value #BULKHEAD_TIME_IN_QUEUE}:
     * how the call ended at the bulkhead, {@code admitted}, {@code rejected} or {@code cancelled}.
     */
    public static final AttributeKey<String> BULKHEAD_OUTCOME = AttributeKey.stringKey("bulwark.bulkhead.outcome");
    /**
     * Attribute on {@value #BULKHEAD_PRIORITY_CALLS}: the {@link dev.bulwark.Priority} the call asked for, in lower
     * case, {@code critical}, {@code high}, {@code normal}, {@code low} or {@code sheddable} (a call made without
     * {@link dev.bulwark.CallOptions} is {@code normal}).
     */
    public static final AttributeKey<String> BULKHEAD_PRIORITY = AttributeKey.stringKey("bulwark.bulkhead.priority");
    /**
     * Attribute on rejected calls' points only: the {@link dev.bulwark.Rejection.Reason} in lower case,
     * {@code queue_full}, {@code wait_timeout}, {@code unavailable}, {@code evicted}, {@code partition_limit},
     * {@code closed} or {@code weight_exceeds_limit}; on {@value #BULKHEAD_CALLS} and {@value #BULKHEAD_TIME_IN_QUEUE}.
     */
    public static final AttributeKey<String> BULKHEAD_REJECTION_REASON =
            AttributeKey.stringKey("bulwark.bulkhead.rejection_reason");

    /**
     * Span event (with {@link BulwarkTelemetry.Builder#spanEvents(boolean)}): a call waited in a bound bulkhead's
     * queue or was refused by it, added to the span current on the thread the bulkhead reported on. Attributes
     * {@link #BULKHEAD_NAME}, {@link #BULKHEAD_OUTCOME}, {@link #BULKHEAD_REJECTION_REASON} (refusals only) and
     * {@link #BULKHEAD_TIME_IN_QUEUE_SECONDS}.
     */
    public static final String BULKHEAD_ADMISSION_EVENT = "bulwark.bulkhead.admission";
    /**
     * Attribute on the {@value #BULKHEAD_ADMISSION_EVENT} span event: how long the call waited in the queue, in
     * seconds ({@code 0.0} for a refusal that did not wait).
     */
    public static final AttributeKey<Double> BULKHEAD_TIME_IN_QUEUE_SECONDS =
            AttributeKey.doubleKey("bulwark.bulkhead.time_in_queue");

    /** Asynchronous up-down counter, <code>{call}</code>: calls holding a slot now. */
    public static final String BULKHEAD_ACTIVE_LEASES = "bulwark.bulkhead.active_leases";
    /** Asynchronous up-down counter, <code>{call}</code>: calls waiting for a slot now. */
    public static final String BULKHEAD_QUEUED_CALLS = "bulwark.bulkhead.queued_calls";
    /** Asynchronous up-down counter, <code>{call}</code>: the concurrency limit in force. */
    public static final String BULKHEAD_CONCURRENCY_LIMIT = "bulwark.bulkhead.concurrency_limit";
    /** Asynchronous up-down counter, <code>{call}</code>: the queue limit in force. */
    public static final String BULKHEAD_QUEUE_LIMIT = "bulwark.bulkhead.queue_limit";
    /**
     * Asynchronous counter, <code>{call}</code>: calls that reached the bulkhead, by {@link #BULKHEAD_OUTCOME} (and
     * {@link #BULKHEAD_REJECTION_REASON} for rejected ones).
     */
    public static final String BULKHEAD_CALLS = "bulwark.bulkhead.calls";
    /**
     * Asynchronous counter, <code>{call}</code>: calls that reached the bulkhead, by {@link #BULKHEAD_PRIORITY} and
     * {@link #BULKHEAD_OUTCOME} ({@code admitted}, {@code rejected} or {@code cancelled}; no rejection reason), every
     * combination reported from the first collection on, zeros included. Per priority, the points add up to those
     * of {@value #BULKHEAD_CALLS} by outcome; the {@code normal} admissions are derived at collection (all admissions
     * less the other priorities') and so may lag calls racing the collection, never going down nor above the truth.
     */
    public static final String BULKHEAD_PRIORITY_CALLS = "bulwark.bulkhead.priority.calls";
    /**
     * Histogram, {@code s}: how long calls that queued waited for a slot, by {@link #BULKHEAD_OUTCOME}:
     * {@code admitted}, {@code rejected} (with reason {@code wait_timeout} or {@code evicted}) and {@code cancelled}.
     * As with ASP.NET Core's {@code time_in_queue}, a call that found a free slot at once did not queue and is not
     * recorded (it is counted in {@value #BULKHEAD_CALLS}). Neither is a queued call refused with another reason
     * ({@code closed}, {@code weight_exceeds_limit}, or {@code unavailable} from a cluster-wide bulkhead): it did
     * wait, but it is counted in {@value #BULKHEAD_CALLS} only.
     */
    public static final String BULKHEAD_TIME_IN_QUEUE = "bulwark.bulkhead.call.time_in_queue";
    /** Histogram, {@code s}: how long admitted calls held their slot. */
    public static final String BULKHEAD_LEASE_DURATION = "bulwark.bulkhead.lease.duration";
    /**
     * Asynchronous gauge, {@code s}: the longest wait recorded into {@value #BULKHEAD_TIME_IN_QUEUE} over the recent
     * window (2 minutes in 3 buffers by default, see {@code BulwarkTelemetry.Builder.distributionStatisticExpiry}),
     * with the same attributes as the histogram's points; 0 when none was recorded in the window.
     */
    public static final String BULKHEAD_TIME_IN_QUEUE_MAX = "bulwark.bulkhead.call.time_in_queue.max";
    /**
     * Asynchronous gauge, {@code s}: the longest timed lease recorded into {@value #BULKHEAD_LEASE_DURATION} over
     * the recent window; 0 when none was timed in the window.
     */
    public static final String BULKHEAD_LEASE_DURATION_MAX = "bulwark.bulkhead.lease.duration.max";
    /**
     * Asynchronous gauge, {@code s}: percentiles of the timed leases over the recent window, by
     * {@link #BULKHEAD_PERCENTILE}, within 1.6 % of the exact ones; 0 when none was timed in the window.
     */
    public static final String BULKHEAD_LEASE_DURATION_PERCENTILE = "bulwark.bulkhead.lease.duration.percentile";
    /** Attribute on {@value #BULKHEAD_LEASE_DURATION_PERCENTILE}: {@code 0.5}, {@code 0.95} or {@code 0.99}. */
    public static final AttributeKey<String> BULKHEAD_PERCENTILE =
            AttributeKey.stringKey("bulwark.bulkhead.percentile");

    /** Attribute on every retry instrument: the retry's name. */
    public static final AttributeKey<String> RETRY_NAME = AttributeKey.stringKey("bulwark.retry.name");
    /**
     * Attribute on {@value #RETRY_CALLS}: {@code succeeded_without_retry}, {@code succeeded_after_retry},
     * {@code failed_retries_exhausted}, {@code failed_not_retryable} or {@code cancelled}.
     */
    public static final AttributeKey<String> RETRY_OUTCOME = AttributeKey.stringKey("bulwark.retry.outcome");
    /** Asynchronous counter, <code>{call}</code>: calls through a retry, by {@link #RETRY_OUTCOME}. */
    public static final String RETRY_CALLS = "bulwark.retry.calls";
    /** Asynchronous counter, <code>{retry}</code>: retries scheduled (attempts after the first). */
    public static final String RETRY_RETRIES = "bulwark.retry.retries";

    /** Attribute on every timeout instrument: the timeout's name. */
    public static final AttributeKey<String> TIMEOUT_NAME = AttributeKey.stringKey("bulwark.timeout.name");
    /** Attribute on {@value #TIMEOUT_CALLS}: {@code in_time} or {@code timed_out}. */
    public static final AttributeKey<String> TIMEOUT_OUTCOME = AttributeKey.stringKey("bulwark.timeout.outcome");
    /** Asynchronous counter, <code>{call}</code>: calls through a timeout, by {@link #TIMEOUT_OUTCOME}. */
    public static final String TIMEOUT_CALLS = "bulwark.timeout.calls";
    /** Histogram, {@code s}: how long calls that ended before their deadline took. */
    public static final String TIMEOUT_CALL_DURATION = "bulwark.timeout.call.duration";

    /** Attribute on {@value #FALLBACK_CALLS}: the name given to {@link BulwarkTelemetry#fallbackCounter(String)}. */
    public static final AttributeKey<String> FALLBACK_NAME = AttributeKey.stringKey("bulwark.fallback.name");
    /**
     * Attribute on {@value #FALLBACK_CALLS}: the fully qualified class name of the failure turned into a value (the
     * semantic conventions' {@code error.type}).
     */
    public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    /** Asynchronous counter, <code>{call}</code>: failures a fallback turned into a value, by {@link #ERROR_TYPE}. */
    public static final String FALLBACK_CALLS = "bulwark.fallback.calls";

    private InstrumentNames() {
    }

    /** Attribute on every partitioned-bulkhead instrument: the partitioned bulkhead's name (never a key). */
    public static final AttributeKey<String> PARTITIONED_NAME = AttributeKey.stringKey("bulwark.partitioned.name");
    /**
     * Asynchronous counter, <code>{call}</code>: calls through a partitioned (per-key) bulkhead, over all its
     * partitions, by {@link #BULKHEAD_OUTCOME} (and {@link #BULKHEAD_REJECTION_REASON} for rejected ones,
     * {@code partition_limit} among them: a new key refused because every partition was in use). With a global limit
     * under global FIFO, a call that gave its key's slot back to wait for a global one counts as admitted each time
     * it takes its key's slot.
     */
    public static final String PARTITIONED_CALLS = "bulwark.partitioned.calls";
    /** Asynchronous up-down counter, <code>{partition}</code>: the partitions that exist now. */
    public static final String PARTITIONED_PARTITIONS = "bulwark.partitioned.partitions";
    /** Asynchronous up-down counter, <code>{partition}</code>: the most partitions that may exist at once. */
    public static final String PARTITIONED_PARTITION_LIMIT = "bulwark.partitioned.partition_limit";
    /** Asynchronous up-down counter, <code>{call}</code>: calls holding a slot in any partition now. */
    public static final String PARTITIONED_ACTIVE_LEASES = "bulwark.partitioned.active_leases";
    /** Asynchronous up-down counter, <code>{call}</code>: calls waiting in any partition's queue now. */
    public static final String PARTITIONED_QUEUED_CALLS = "bulwark.partitioned.queued_calls";
    /**
     * Asynchronous counter, <code>{partition}</code>: partitions evicted, idle for the idle timeout or to make room
     * for a new key.
     */
    public static final String PARTITIONED_EVICTIONS = "bulwark.partitioned.evictions";
}
