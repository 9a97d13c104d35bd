package dev.bulwark.spring;

import dev.bulwark.Subscription;
import dev.bulwark.micrometer.BulwarkMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Binds every bulkhead, retry, timeout and partitioned bulkhead (those of keyed shedding routes among them) of
 * {@link BulwarkPolicies} to the application's {@link MeterRegistry}, and
 * counts the fallback methods the annotations take in {@code bulwark.fallback.used}, when Micrometer is on the class
 * path and a registry bean exists (Spring Boot's Actuator brings both; the starter brings bulwark-micrometer).
 * Policies made later are bound as they are made. Switch it off with {@code bulwark.metrics.enabled=false}.
 *
 * <p>The binder is configured from {@link BulwarkMetricsProperties}: the window of the bulkheads' maxima and
 * percentiles ({@code bulwark.metrics.distribution-statistic-expiry} and {@code ...-buffer-length}), and, when the
 * application has an {@link ObservationRegistry} bean (Spring Boot's Actuator makes one; Micrometer Tracing turns its
 * observations into spans), the {@code bulwark.bulkhead.admission} observations of the calls that waited or were
 * refused, unless {@code bulwark.metrics.observations.enabled=false}.
 *
 * <p>When metrics are on by configuration but cannot be bound, one INFO line at startup (logger
 * {@code dev.bulwark.spring}) says why: Micrometer is not on the class path, or there is no {@code MeterRegistry}
 * bean; the {@link MetricsOff} bean carries the same reason.
 */
@AutoConfiguration(after = BulwarkAutoConfiguration.class, afterName = {
        // Spring Boot 3: the registries are made by Actuator's metrics auto-configuration.
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        // Spring Boot 4: by spring-boot-micrometer-metrics.
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnProperty(prefix = "bulwark.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(BulwarkPolicies.class)
public final class BulwarkMetricsAutoConfiguration {

    private static final String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";
    private static final System.Logger LOGGER = System.getLogger("dev.bulwark.spring");

    /** Creates the configuration; Spring calls it. */
    public BulwarkMetricsAutoConfiguration() {
    }

    /** The binding, when Micrometer and a registry bean are there. Types named by string: Micrometer may be absent. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {METER_REGISTRY, "dev.bulwark.micrometer.BulwarkMetrics"})
    @ConditionalOnBean(type = METER_REGISTRY)
    @EnableConfigurationProperties(BulwarkMetricsProperties.class)
    static class Binding {

        /**
         * The binder of Bulwark's meters to the application's registry; use it for
         * {@link BulwarkMetrics#fallbackCounter(String)} too.
         *
         * @param registry the application's (primary) registry
         * @param properties the window of maxima and percentiles, and whether to make observations
         * @param observationRegistry the application's observation registry, if it has exactly one
         * @return the binder
         */
        @Bean
        @ConditionalOnMissingBean
        BulwarkMetrics bulwarkMetrics(MeterRegistry registry, BulwarkMetricsProperties properties,
                                      ObjectProvider<ObservationRegistry> observationRegistry) {
            BulwarkMetrics.Builder builder = BulwarkMetrics.builder(registry);
            try {
                if (properties.distributionStatisticExpiry() != null) {
                    builder.distributionStatisticExpiry(properties.distributionStatisticExpiry());
                }
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("bulwark.metrics.distribution-statistic-expiry: "
                        + bad.getMessage(), bad);
            }
            try {
                if (properties.distributionStatisticBufferLength() != null) {
                    builder.distributionStatisticBufferLength(properties.distributionStatisticBufferLength());
                }
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("bulwark.metrics.distribution-statistic-buffer-length: "
                        + bad.getMessage(), bad);
            }
            if (properties.observations().enabled()) {
                builder.observationRegistry(observationRegistry.getIfUnique());
            }
            builder.histograms(properties.histograms().enabled());
            try {
                if (properties.histograms().buckets() != null) {
                    builder.histogramBuckets(properties.histograms().buckets().toArray(Duration[]::new));
                }
            } catch (IllegalArgumentException | NullPointerException bad) {
                throw new IllegalArgumentException("bulwark.metrics.histograms.buckets: " + bad.getMessage(), bad);
            }
            return builder.build();
        }

        /**
         * Binds the policies; closing it (when the context closes) removes the meters.
         *
         * @param metrics the binder
         * @param policies the policies
         * @return the binding
         */
        @Bean
        MeterBinding bulwarkMeterBinding(BulwarkMetrics metrics, BulwarkPolicies policies) {
            return new MeterBinding(metrics, policies);
        }

        /**
         * Counts each fallback method taken in {@code bulwark.fallback.used}, tagged with the name of the policy
         * whose annotation names it and the failure's simple class name.
         *
         * @param metrics the binder
         * @return the listener
         */
        @Bean
        FallbackMethodListener bulwarkFallbackMethodMeters(BulwarkMetrics metrics) {
            return (name, method, failure) -> metrics.fallbackCounter(name).accept(failure);
        }
    }

    /** Says once, at startup, that metrics are off because Micrometer is missing. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(METER_REGISTRY)
    static class NoMicrometer {

        @Bean
        MetricsOff bulwarkMetricsOff() {
            return MetricsOff.log("Micrometer is not on the class path; add spring-boot-starter-actuator (or "
                    + "micrometer-core and a registry) to get the bulwark.* meters");
        }
    }

    /** Says once, at startup, that metrics are off because no registry bean exists. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = METER_REGISTRY)
    @ConditionalOnMissingBean(type = METER_REGISTRY)
    static class NoMeterRegistry {

        @Bean
        MetricsOff bulwarkMetricsOff() {
            return MetricsOff.log("there is no MeterRegistry bean; add spring-boot-starter-actuator (which makes "
                    + "one) or declare one to get the bulwark.* meters");
        }
    }

    /**
     * Present as a bean when metrics are enabled but nothing could be bound; its {@link #reason()} is what the startup
     * line said. Immutable.
     */
    public static final class MetricsOff {

        private final String reason;

        private MetricsOff(String reason) {
            this.reason = reason;
        }

        static MetricsOff log(String reason) {
            LOGGER.log(System.Logger.Level.INFO, "Bulwark metrics are off: " + reason
                    + " (bulwark.metrics.enabled=false silences this line)");
            return new MetricsOff(reason);
        }

        /**
         * Returns why the meters are not bound.
         *
         * @return the reason, as logged at startup
         */
        public String reason() {
            return reason;
        }

        @Override
        public String toString() {
            return "MetricsOff[" + reason + "]";
        }
    }

    /**
     * The binding of an application's policies to its meter registry. Thread-safe; closing is idempotent.
     */
    public static final class MeterBinding implements AutoCloseable {

        private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();

        MeterBinding(BulwarkMetrics metrics, BulwarkPolicies policies) {
            subscriptions.add(metrics.bind(policies.bulkheads()));
            subscriptions.add(policies.onRetryAdded(retry -> bind(() -> metrics.bind(retry), retry.name())));
            subscriptions.add(policies.onTimeoutAdded(timeout -> bind(() -> metrics.bind(timeout), timeout.name())));
            subscriptions.add(policies.onPartitionedAdded(partitioned -> bind(() -> metrics.bind(partitioned),
                    partitioned.name())));
        }

        private void bind(java.util.function.Supplier<Subscription> binding, String name) {
            try {
                subscriptions.add(binding.get());
            } catch (IllegalStateException alreadyBound) {
                LOGGER.log(System.Logger.Level.DEBUG, "Policy '" + name + "' is already bound: "
                        + alreadyBound.getMessage());
            }
        }

        /** Unbinds every policy: detaches the listeners and removes the meters. */
        @Override
        public void close() {
            for (Subscription subscription : subscriptions) {
                subscription.close();
            }
            subscriptions.clear();
        }
    }
}
