package dev.bulwark.micrometer.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a binding's histograms can be published: the Prometheus registries among a meter registry and, for a
 * composite, its members. Micrometer's Prometheus registry is an optional dependency, so nothing here refers to it
 * unless it is on the class path ({@link PrometheusHistograms} is loaded only then).
 */
final class HistogramTargets {

    private static final String PROMETHEUS_REGISTRY = "io.micrometer.prometheusmetrics.PrometheusMeterRegistry";
    private static final boolean PROMETHEUS_PRESENT = isPresent(PROMETHEUS_REGISTRY);

    private HistogramTargets() {
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, HistogramTargets.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /**
     * Publishes {@code series} in every Prometheus registry {@code registry} is or contains.
     *
     * @return what removes them again, {@code null} when there was nowhere to publish them (then nothing needs to
     *     be recorded for them either)
     */
    static Runnable publish(MeterRegistry registry, List<HistogramSeries> series) {
        if (!PROMETHEUS_PRESENT || series.isEmpty()) {
            return null;
        }
        List<Runnable> removals = new ArrayList<>();
        publishIn(registry, series, removals);
        return removals.isEmpty() ? null : () -> removals.forEach(Runnable::run);
    }

    private static void publishIn(MeterRegistry registry, List<HistogramSeries> series, List<Runnable> removals) {
        if (registry instanceof CompositeMeterRegistry) {
            for (MeterRegistry member : ((CompositeMeterRegistry) registry).getRegistries()) {
                publishIn(member, series, removals);
            }
        } else {
            Runnable removal = PrometheusHistograms.publishIfPrometheus(registry, series);
            if (removal != null) {
                removals.add(removal);
            }
        }
    }
}
