package dev.bulwark.spring;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How the starter binds Bulwark's policies to Micrometer, under {@code bulwark.metrics} (the switch
 * {@code bulwark.metrics.enabled} itself is read by {@link BulwarkMetricsAutoConfiguration}'s condition):
 *
 * <pre>
 * bulwark:
 *   metrics:
 *     distribution-statistic-expiry: 2m        # window of the bulkheads' maxima and percentiles
 *     distribution-statistic-buffer-length: 3
 *     observations:
 *       enabled: true                         # waits and refusals as observations, when an ObservationRegistry exists
 *     histograms:
 *       enabled: true                         # _bucket series of waits and executions, in Prometheus registries
 *       buckets: 1ms, 10ms, 100ms, 1s         # their upper bounds; absent: BulwarkMetrics.DEFAULT_HISTOGRAM_BUCKETS
 * </pre>
 *
 * <p>Values are checked by {@code BulwarkMetrics.Builder} when the context starts: a bad one fails the startup with a
 * message naming it. Immutable (bound through its constructor).
 *
 * @param distributionStatisticExpiry how long the bulkheads' maxima and percentiles remember a value
 *     ({@code BulwarkMetrics.Builder.distributionStatisticExpiry}); {@code null} for its default, 2 minutes
 * @param distributionStatisticBufferLength how many buffers that window rotates through
 *     ({@code BulwarkMetrics.Builder.distributionStatisticBufferLength}); {@code null} for its default, 3
 * @param observations the {@code bulwark.bulkhead.admission} observations of waits and refusals
 * @param histograms the histograms of waits and executions published in Prometheus registries
 */
@ConfigurationProperties("bulwark.metrics")
public record BulwarkMetricsProperties(Duration distributionStatisticExpiry, Integer distributionStatisticBufferLength,
                                       Observations observations, Histograms histograms) {

    /** Replaces an absent section with its defaults. */
    public BulwarkMetricsProperties {
        observations = observations == null ? new Observations(null) : observations;
        histograms = histograms == null ? new Histograms(null, null) : histograms;
    }

    /**
     * The histograms of the bulkheads' waits and executions ({@code BulwarkMetrics.Builder.histograms} and
     * {@code histogramBuckets}), published when the registry is (or holds) a Prometheus one.
     *
     * @param enabled whether to publish them; {@code null} (absent) means {@code true}
     * @param buckets the buckets' upper bounds, ascending; {@code null} (absent) for the default ladder, 100 µs to 10 s
     */
    public record Histograms(Boolean enabled, List<Duration> buckets) {

        /** Replaces an absent switch with {@code true}. */
        public Histograms {
            enabled = enabled == null ? Boolean.TRUE : enabled;
            buckets = buckets == null ? null : List.copyOf(buckets);
        }
    }

    /**
     * The observations of waits and refusals ({@code BulwarkMetrics.Builder.observationRegistry}), made in the
     * application's {@code ObservationRegistry} bean when there is one.
     *
     * @param enabled whether to make them; {@code null} (absent) means {@code true}
     */
    public record Observations(Boolean enabled) {

        /** Replaces an absent switch with {@code true}. */
        public Observations {
            enabled = enabled == null ? Boolean.TRUE : enabled;
        }
    }
}
