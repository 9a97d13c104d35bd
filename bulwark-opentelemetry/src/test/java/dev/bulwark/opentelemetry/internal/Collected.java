package dev.bulwark.opentelemetry.internal;

import dev.bulwark.opentelemetry.InstrumentNames;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;

/** Reads the totals of counters ({@code bulwark.bulkhead.calls} and others) from a real SDK reader. */
final class Collected {

    private Collected() {
    }

    static long sumOfCalls(InMemoryMetricReader reader) {
        return sumOf(reader, InstrumentNames.BULKHEAD_CALLS);
    }

    /** The total of every point of the long sum {@code name}, in a new collection. */
    static long sumOf(InMemoryMetricReader reader, String name) {
        return reader.collectAllMetrics().stream()
                .filter(metric -> metric.getName().equals(name))
                .flatMap(metric -> metric.getLongSumData().getPoints().stream())
                .mapToLong(LongPointData::getValue).sum();
    }
}
