package dev.bulwark.micrometer;

/**
 * The names of the meters {@link BulwarkMetrics} registers and of their tags, for dashboards, alerts and
 * {@link io.micrometer.core.instrument.config.MeterFilter}s (for example to enable percentile histograms on the
 * retry and timeout timers; the bulkhead's timers are function timers, which publish no histogram of their own: its
 * histograms are {@link #BULKHEAD_WAIT_DURATION} and {@link #BULKHEAD_EXECUTION_DURATION}, in Prometheus registries).
 *
 * <p>Names follow Micrometer's convention: lower case, words separated by dots, no unit and no {@code _total}
 * suffix, so that each registry renders them in its own style (Prometheus: {@code bulwark_bulkhead_calls_total},
 * {@code bulwark_bulkhead_wait_seconds}).
 */
public final class MeterNames {

    /** Tag on every meter: the name of the bulkhead, retry, timeout or fallback. */
    public static final String TAG_NAME = "name";
    /** Tag on the call counters and the wait timer: how a call ended. */
    public static final String TAG_OUTCOME = "outcome";
    /**
     * Tag on {@value #BULKHEAD_PRIORITY_CALLS}: the {@link dev.bulwark.Priority} a call asked for, in lower case
     * ({@code critical}, {@code high}, {@code normal}, {@code low}, {@code sheddable}).
     */
    public static final String TAG_PRIORITY = "priority";
    /** Tag on the fallback counter: the simple class name of the failure turned into a value. */
    public static final String TAG_EXCEPTION = "exception";

    /** Gauge: calls holding a slot now. */
    public static final String BULKHEAD_EXECUTING = "bulwark.bulkhead.executing";
    /** Gauge: calls waiting for a slot now. */
    public static final String BULKHEAD_QUEUED = "bulwark.bulkhead.queued";
    /** Gauge: the concurrency limit in force. */
    public static final String BULKHEAD_MAX_CONCURRENCY = "bulwark.bulkhead.max.concurrency";
    /** Gauge: the queue limit in force. */
    public static final String BULKHEAD_MAX_QUEUE = "bulwark.bulkhead.max.queue";
    /**
     * Function counter ({@code registry.get(BULKHEAD_CALLS).functionCounter()}; it was a {@code Counter} before
     * 0.1.0): calls by {@value #TAG_OUTCOME}: {@code admitted}, {@code cancelled}, and one series per
     * {@link dev.bulwark.Rejection.Reason}: {@code rejected.queue_full}, {@code rejected.wait_timeout},
     * {@code rejected.evicted} (LIFO queues, or calls with priorities), {@code rejected.unavailable} (cluster-wide
     * bulkheads only), {@code rejected.partition_limit} (stays 0 on a bulkhead: a per-key bulkhead's
     * {@code PARTITION_LIMIT} refusals are counted on {@value #PARTITIONED_CALLS}), {@code rejected.closed} (after
     * {@code close} or during {@code drain}) and {@code rejected.weight_exceeds_limit} (weighted calls only). Every
     * bound bulkhead registers all of them, so that dashboards and alerts see the same series everywhere; those a kind
     * of bulkhead cannot produce stay at 0. Exact counts, kept by the binding (per-thread cells for the admissions) and
     * read when scraped: a count is exact once the calls that made it have returned, and cumulative whatever the
     * registry (a step registry publishes its increase per step).
     */
    public static final String BULKHEAD_CALLS = "bulwark.bulkhead.calls";
    /**
     * Function counter: calls by {@value #TAG_PRIORITY} (every priority registered at 0) and {@value #TAG_OUTCOME}:
     * {@code admitted}, {@code rejected} (any reason; the reasons are on {@value #BULKHEAD_CALLS}) and
     * {@code cancelled}. A call made without {@link dev.bulwark.CallOptions} counts as {@code normal}. The
     * {@code normal} admissions are derived when scraped (all admissions less the other priorities'), so that a call
     * pays no second increment: never above the true count, exact when the bulkhead is quiet, monotonic.
     */
    public static final String BULKHEAD_PRIORITY_CALLS = "bulwark.bulkhead.priority.calls";
    /**
     * Function timer: how long calls waited for a slot, by {@value #TAG_OUTCOME}: {@code admitted} (zero for a call
     * that found a free slot), {@code rejected.wait_timeout} and {@code cancelled}. Exact counts and totals.
     */
    public static final String BULKHEAD_WAIT = "bulwark.bulkhead.wait";
    /**
     * Histogram, in Prometheus registries only (Prometheus: {@code bulwark_bulkhead_wait_duration_seconds_bucket},
     * {@code _count}, {@code _sum}): how long calls waited for a slot, by {@value #TAG_OUTCOME} as on
     * {@value #BULKHEAD_WAIT}, in the buckets of {@link BulwarkMetrics.Builder#histogramBuckets}. Exact: a call that
     * found a free slot is counted in every bucket (it waited 0), and its {@code +Inf} bucket and {@code _count} are
     * the wait timer's count. Cumulative (buckets never decay), so that {@code histogram_quantile} over
     * {@code sum by (le) (rate(..._bucket[5m]))} gives a fleet's percentile. Off with
     * {@link BulwarkMetrics.Builder#histograms histograms(false)}.
     */
    public static final String BULKHEAD_WAIT_DURATION = "bulwark.bulkhead.wait.duration";
    /**
     * Time gauge: the longest wait over the recent window (2 minutes in 3 buffers by default, see
     * {@link BulwarkMetrics.Builder#distributionStatisticExpiry}), by {@value #TAG_OUTCOME} (the outcomes of the wait
     * timer); 0 when no call waited in the window.
     */
    public static final String BULKHEAD_WAIT_MAX = "bulwark.bulkhead.wait.max";
    /**
     * Function timer: how long admitted calls held their slot. Exact count; the total is exact with exact timing,
     * else the sampled mean times the exact count (see {@link BulwarkMetrics}).
     */
    public static final String BULKHEAD_EXECUTION = "bulwark.bulkhead.execution";
    /**
     * Histogram, in Prometheus registries only (Prometheus:
     * {@code bulwark_bulkhead_execution_duration_seconds_bucket}, {@code _count}, {@code _sum}): how long admitted
     * calls held their slot, in the buckets of {@link BulwarkMetrics.Builder#histogramBuckets}. Its {@code +Inf}
     * bucket and {@code _count} are the execution timer's exact count and {@code _sum} its total. With exact timing
     * the buckets are exact; with sampled timing (the default) they are the sample's distribution carried to the
     * exact count, each timed call weighing as many calls as it stands for, so that a fleet-wide
     * {@code histogram_quantile} weighs each instance by its calls. Every bucket is monotonic and at most the count.
     * Cumulative; off with {@link BulwarkMetrics.Builder#histograms histograms(false)}.
     */
    public static final String BULKHEAD_EXECUTION_DURATION = "bulwark.bulkhead.execution.duration";
    /** Time gauge: the longest execution among the timed calls of the recent window; 0 when none. */
    public static final String BULKHEAD_EXECUTION_MAX = "bulwark.bulkhead.execution.max";
    /**
     * Time gauge: percentiles of the execution time of the timed calls of the recent window, by {@value #TAG_PHI}
     * ({@code 0.5}, {@code 0.95}, {@code 0.99}), within 1.6 % of the exact percentile of those calls; 0 when none.
     */
    public static final String BULKHEAD_EXECUTION_PERCENTILE = "bulwark.bulkhead.execution.percentile";
    /** Tag on {@value #BULKHEAD_EXECUTION_PERCENTILE}: the percentile as a fraction, such as {@code 0.99}. */
    public static final String TAG_PHI = "phi";

    /**
     * Counter: calls through a partitioned (per-key) bulkhead, over all its partitions, by {@value #TAG_OUTCOME}:
     * {@code admitted}, {@code cancelled} and one series per {@link dev.bulwark.Rejection.Reason} as on
     * {@value #BULKHEAD_CALLS}, {@code rejected.partition_limit} among them (a new key refused because every
     * partition was in use: what a flood of client-chosen keys shows as). Tagged with the partitioned bulkhead's
     * name, never with a key, so a flood of keys adds no series. Exact counts. With a global limit under global
     * FIFO, a call that gave its key's slot back to wait for a global one counts as admitted each time it takes
     * its key's slot.
     */
    public static final String PARTITIONED_CALLS = "bulwark.partitioned.calls";
    /** Gauge: the partitions (keys with a bulkhead) that exist now. */
    public static final String PARTITIONED_PARTITIONS = "bulwark.partitioned.partitions";
    /** Gauge: the most partitions that may exist at once. */
    public static final String PARTITIONED_MAX_PARTITIONS = "bulwark.partitioned.max.partitions";
    /** Gauge: calls holding a slot in any partition now. */
    public static final String PARTITIONED_EXECUTING = "bulwark.partitioned.executing";
    /** Gauge: calls waiting in any partition's queue now. */
    public static final String PARTITIONED_QUEUED = "bulwark.partitioned.queued";
    /**
     * Function counter: partitions evicted, idle for the idle timeout or to make room for a new key. Climbing fast
     * while {@value #PARTITIONED_PARTITIONS} sits at {@value #PARTITIONED_MAX_PARTITIONS}: more keys come and go than
     * the table holds.
     */
    public static final String PARTITIONED_EVICTIONS = "bulwark.partitioned.evictions";

    /**
     * Counter: calls through a retry by {@value #TAG_OUTCOME}: {@code succeeded.without_retry},
     * {@code succeeded.after_retry}, {@code failed.retries_exhausted}, {@code failed.not_retryable} and
     * {@code cancelled}.
     */
    public static final String RETRY_CALLS = "bulwark.retry.calls";
    /** Counter: retries scheduled (attempts after the first). */
    public static final String RETRY_RETRIES = "bulwark.retry.retries";

    /** Counter: calls through a timeout by {@value #TAG_OUTCOME}: {@code in_time} and {@code timed_out}. */
    public static final String TIMEOUT_CALLS = "bulwark.timeout.calls";
    /** Timer: how long calls that ended before their deadline took. */
    public static final String TIMEOUT_EXECUTION = "bulwark.timeout.execution";

    /** Counter: failures a fallback turned into a value, by {@value #TAG_EXCEPTION}. */
    public static final String FALLBACK_USED = "bulwark.fallback.used";

    private MeterNames() {
    }
}
