package dev.bulwark.opentelemetry.internal;

import dev.bulwark.opentelemetry.InstrumentNames;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;

/** Reads the total of {@code bulwark.bulkhead.calls} from a real SDK reader. */
final class Collected {

    private Collected() {
    }

    static long sumOfCalls(InMemoryMetricReader reader) {
        return reader.collectAllMetrics().stream()
                .filter(metric -> metric.getName().equals(InstrumentNames.BULKHEAD_CALLS))
                .flatMap(metric -> metric.getLongSumData().getPoints().stream())
                .mapToLong(LongPointData::getValue).sum();
    }
}
