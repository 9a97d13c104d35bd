/**
 * OpenTelemetry metrics for Bulwark: the bulkhead's leases, queue, limits, calls and waits, and the retry, timeout
 * and fallback facts, through the OpenTelemetry metrics API.
 *
 * <p>Only {@code dev.bulwark.opentelemetry} is exported; {@code dev.bulwark.opentelemetry.internal} is
 * implementation.
 */
module dev.bulwark.opentelemetry {
    requires transitive dev.bulwark;
    requires transitive io.opentelemetry.api;

    exports dev.bulwark.opentelemetry;
}
