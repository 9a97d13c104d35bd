package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTION;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_EXECUTION_DURATION;
import static dev.bulwark.micrometer.MeterNames.BULKHEAD_WAIT_DURATION;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bulkheads' histograms in one Prometheus registry: a collector registered once per {@link PrometheusRegistry}
 * (whatever the number of bindings), which renders every {@link HistogramSeries} published to it as a classic
 * Prometheus histogram ({@code _bucket{le}}, {@code _count}, {@code _sum}).
 *
 * <h2>Design notes</h2>
 *
 * <p>Why not Micrometer's own {@code Timer} with a percentile histogram: a timer records every value it counts, so
 * its buckets would either cost a clock reading and a recording on every call, or count only the sample, and then a
 * fleet-wide {@code histogram_quantile} would weigh every instance by its sample size (about the same on a quiet
 * instance and on a busy one) instead of by its calls. Micrometer has no weighted recording, so the buckets are kept
 * by the binding ({@link BucketCounts}) and rendered here through the Prometheus client's model, which Micrometer's
 * Prometheus registry exposes. Only that registry can render them; other registries get no buckets.
 *
 * <p>Labels are the tags of the Micrometer meter each series sits beside, as that registry sees them (its common
 * tags and filters applied), named by its naming convention; a series whose meter the registry denied is not
 * published. Two series with the same labels (two bindings of one name through different {@code BulwarkMetrics})
 * would make the scrape invalid, so only the first is rendered. Thread-safe: the series list is copy-on-write and
 * the table of collectors is guarded by a lock (binding is rare).
 */
final class PrometheusHistograms implements MultiCollector {

    private static final String EXECUTION_HELP = "How long admitted calls held their slot of the bulkhead";
    private static final String WAIT_HELP = "How long calls waited for a slot of the bulkhead, by how the wait ended";

    private static final ReentrantLock TABLE_LOCK = new ReentrantLock();
    /** Guarded by {@link #TABLE_LOCK}. Weak keys: a registry that is dropped takes its collector with it. */
    private static final Map<PrometheusRegistry, PrometheusHistograms> BY_REGISTRY = new WeakHashMap<>();

    private final String executionName;
    private final String waitName;
    private final List<Published> published = new CopyOnWriteArrayList<>();

    private PrometheusHistograms(NamingConvention convention) {
        this.executionName = convention.name(BULKHEAD_EXECUTION_DURATION, Meter.Type.TIMER);
        this.waitName = convention.name(BULKHEAD_WAIT_DURATION, Meter.Type.TIMER);
    }

    /**
     * Publishes {@code series} in {@code registry}'s Prometheus registry, if it is a Prometheus meter registry.
     *
     * @return what removes them again, {@code null} when {@code registry} is not a Prometheus registry
     */
    static Runnable publishIfPrometheus(MeterRegistry registry, List<HistogramSeries> series) {
        return registry instanceof PrometheusMeterRegistry ? publish((PrometheusMeterRegistry) registry, series) : null;
    }

    private static Runnable publish(PrometheusMeterRegistry registry, List<HistogramSeries> series) {
        PrometheusHistograms collector;
        TABLE_LOCK.lock();
        try {
            collector = BY_REGISTRY.get(registry.getPrometheusRegistry());
            if (collector == null) {
                collector = new PrometheusHistograms(registry.config().namingConvention());
                registry.getPrometheusRegistry().register(collector);
                BY_REGISTRY.put(registry.getPrometheusRegistry(), collector);
            }
        } finally {
            TABLE_LOCK.unlock();
        }
        NamingConvention convention = registry.config().namingConvention();
        List<Published> added = new ArrayList<>();
        for (HistogramSeries one : series) {
            Meter twin = registry.find(one.twinMeterName()).tags(one.tags()).meter();
            if (twin == null) {
                continue; // denied by a filter of this registry: so is its histogram
            }
            added.add(new Published(one, labels(twin.getId().getTagsAsIterable(), convention)));
        }
        PrometheusHistograms target = collector;
        target.published.addAll(added);
        return () -> target.published.removeAll(added);
    }

    private static Labels labels(Iterable<Tag> tags, NamingConvention convention) {
        List<String> names = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (Tag tag : Tags.of(tags)) {
            names.add(convention.tagKey(tag.getKey()));
            values.add(convention.tagValue(tag.getValue()));
        }
        return Labels.of(names, values);
    }

    @Override
    public MetricSnapshots collect() {
        List<HistogramDataPointSnapshot> executions = new ArrayList<>();
        List<HistogramDataPointSnapshot> waits = new ArrayList<>();
        Set<Labels> seenExecutions = new HashSet<>();
        Set<Labels> seenWaits = new HashSet<>();
        for (Published one : published) {
            boolean execution = BULKHEAD_EXECUTION.equals(one.series.twinMeterName());
            if (!(execution ? seenExecutions : seenWaits).add(one.labels)) {
                continue;
            }
            (execution ? executions : waits).add(one.snapshot());
        }
        List<MetricSnapshot> families = new ArrayList<>(2);
        if (!executions.isEmpty()) {
            families.add(new HistogramSnapshot(new MetricMetadata(executionName, EXECUTION_HELP), executions));
        }
        if (!waits.isEmpty()) {
            families.add(new HistogramSnapshot(new MetricMetadata(waitName, WAIT_HELP), waits));
        }
        return new MetricSnapshots(families);
    }

    /** A series and its labels in this registry. */
    private static final class Published {
        final HistogramSeries series;
        final Labels labels;

        Published(HistogramSeries series, Labels labels) {
            this.series = series;
            this.labels = labels;
        }

        HistogramDataPointSnapshot snapshot() {
            long[] cumulative = series.cumulativeCounts();
            double[] upperBounds = new double[cumulative.length];
            long[] counts = new long[cumulative.length]; // per bucket: the model adds them up when rendering
            long below = 0L;
            for (int i = 0; i < cumulative.length; i++) {
                upperBounds[i] = i == cumulative.length - 1 ? Double.POSITIVE_INFINITY : series.upperBoundSeconds(i);
                counts[i] = cumulative[i] - below;
                below = cumulative[i];
            }
            return new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(upperBounds, counts),
                    series.sumNanos() / 1e9, labels, Exemplars.EMPTY, 0L);
        }
    }
}
