/**
 * Micrometer meters for Bulwark: gauges, counters and timers for bulkheads, retries, timeouts and fallbacks.
 *
 * <p>Only {@code dev.bulwark.micrometer} is exported; {@code dev.bulwark.micrometer.internal} is implementation.
 */
module dev.bulwark.micrometer {
    requires transitive dev.bulwark;
    requires transitive micrometer.core;
    requires transitive micrometer.observation;
    // Optional: the bulkheads' histograms are published through them only when the application has them.
    requires static micrometer.registry.prometheus;
    requires static io.prometheus.metrics.model;

    exports dev.bulwark.micrometer;
}
