package dev.bulwark.opentelemetry;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;
import java.util.Optional;
import java.util.stream.Collectors;

/** One collection from a real SDK {@link InMemoryMetricReader}, with look-ups by instrument name and attributes. */
final class Collected {

    private final Collection<MetricData> metrics;

    private Collected(Collection<MetricData> metrics) {
        this.metrics = metrics;
    }

    static Collected from(InMemoryMetricReader reader) {
        return new Collected(reader.collectAllMetrics());
    }

    Optional<MetricData> metric(String name) {
        return metrics.stream().filter(metric -> metric.getName().equals(name)).findFirst();
    }

    MetricData require(String name) {
        return metric(name).orElseThrow(() -> new AssertionError("no instrument " + name + " in "
                + metrics.stream().map(MetricData::getName).collect(Collectors.toList())));
    }

    /** The value of a long sum (counter or up-down counter) point with exactly these attributes. */
    Optional<Long> sum(String name, Attributes attributes) {
        MetricData metric = require(name);
        Collection<LongPointData> points = metric.getType() == MetricDataType.LONG_SUM
                ? metric.getLongSumData().getPoints() : metric.getLongGaugeData().getPoints();
        return points.stream().filter(point -> point.getAttributes().equals(attributes)).findFirst()
                .map(LongPointData::getValue);
    }

    /** The histogram point with exactly these attributes. */
    Optional<HistogramPointData> histogram(String name, Attributes attributes) {
        return require(name).getHistogramData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes)).findFirst();
    }

    /** Whether any point of any instrument carries {@code attributes} among its own. */
    boolean anyPointWith(String name, Attributes attributes) {
        return metric(name).map(metric -> metric.getData().getPoints().stream()
                .anyMatch(point -> attributes.asMap().entrySet().stream()
                        .allMatch(entry -> entry.getValue().equals(point.getAttributes().get(entry.getKey())))))
                .orElse(false);
    }
}
