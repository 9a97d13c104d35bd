/**
 * Bulwark: fault-tolerant calls whose heart is an exact bulkhead.
 *
 * <p>Only {@code dev.bulwark} is exported to everyone; everything under {@code dev.bulwark.internal} is
 * implementation and may change without notice. {@code dev.bulwark.internal.spi} holds the kit Bulwark's own
 * bulkheads build on (outcomes, waiter fate, async start, release-once permits) and is exported to the Redis module
 * alone; {@code dev.bulwark.internal.util} (argument checks, field handles, the listener fan-out, the wording of a
 * wait, a stage's failure as thrown) to the Redis, Spring, gRPC and HTTP modules;
 * {@code dev.bulwark.internal.stats} (the bulkhead's own statistics and timing sampler) and
 * {@code dev.bulwark.internal.binding} (a policy's binding to a metrics back end) only to the metrics bindings;
 * {@code dev.bulwark.internal.adaptive} (the adaptive limits' algorithms) only to the Redis module.
 */
// The qualified exports name modules that are not built yet when this one compiles.
@SuppressWarnings("module")
module dev.bulwark {
    exports dev.bulwark;
    exports dev.bulwark.internal.spi to dev.bulwark.redis;
    // Plain utilities: argument checks, field handles and the listener fan-out for Redis, the wording of a wait for
    // Spring's refusals, a stage's failure as the operation threw it for Redis, Spring, Reactor, gRPC and HTTP.
    exports dev.bulwark.internal.util to dev.bulwark.redis, dev.bulwark.spring, dev.bulwark.grpc, dev.bulwark.http,
            dev.bulwark.reactor;
    // The bulkhead's own statistics (striped counters, sampled timers), read by the metrics bindings at scrape; the
    // OpenTelemetry binding uses the same timing sampler.
    exports dev.bulwark.internal.stats to dev.bulwark.micrometer, dev.bulwark.opentelemetry;
    // A policy's binding to a metrics back end (weak references, cleaner, the table by kind and name), written once
    // for both bindings, which keep only what they register.
    exports dev.bulwark.internal.binding to dev.bulwark.micrometer, dev.bulwark.opentelemetry;
    // A waiter (internal.spi) is its own timing-wheel node, so the Redis bulkhead's waiters extend the wheel's node.
    exports dev.bulwark.internal.timer to dev.bulwark.redis;
    // The cluster-wide bulkhead runs core's adaptive algorithms; it makes them through AdaptiveLimiters.
    exports dev.bulwark.internal.adaptive to dev.bulwark.redis;

    // Flight Recorder events (part of every standard JDK) let operators record rejections and waits without code.
    requires jdk.jfr;

    // JSpecify's nullness annotations (@NullMarked, @Nullable) serve compilers and Kotlin; absent at run time, they
    // are simply not there.
    requires static org.jspecify;

    // BlockHound, when an application installs it, loads internal.BulwarkBlockHoundIntegration through
    // META-INF/services (on the class path). No "provides" here: on the module path without BlockHound, that clause
    // would stop this module from resolving.
    requires static reactor.blockhound;
}
