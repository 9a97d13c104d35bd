package dev.bulwark.spring;

import dev.bulwark.Subscription;
import dev.bulwark.micrometer.BulwarkMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Binds every bulkhead, retry and timeout of {@link BulwarkPolicies} to the application's {@link MeterRegistry} when
 * Micrometer and bulwark-micrometer are on the class path and a registry bean exists (Spring Boot's Actuator makes
 * one). Policies made later are bound as they are made. Switch it off with {@code bulwark.metrics.enabled=false}.
 */
@AutoConfiguration(after = BulwarkAutoConfiguration.class, afterName = {
        // Spring Boot 3: the registries are made by Actuator's metrics auto-configuration.
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        // Spring Boot 4: by spring-boot-micrometer-metrics.
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(name = {"io.micrometer.core.instrument.MeterRegistry", "dev.bulwark.micrometer.BulwarkMetrics"})
@ConditionalOnProperty(prefix = "bulwark.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean({MeterRegistry.class, BulwarkPolicies.class})
public class BulwarkMetricsAutoConfiguration {

    /** Creates the configuration; Spring calls it. */
    public BulwarkMetricsAutoConfiguration() {
    }

    /**
     * The binder of Bulwark's meters to the application's registry; use it for
     * {@link BulwarkMetrics#fallbackCounter(String)} too.
     *
     * @param registry the application's (primary) registry
     * @return the binder
     */
    @Bean
    @ConditionalOnMissingBean
    public BulwarkMetrics bulwarkMetrics(MeterRegistry registry) {
        return BulwarkMetrics.of(registry);
    }

    /**
     * Binds the policies; closing it (when the context closes) removes the meters.
     *
     * @param metrics the binder
     * @param policies the policies
     * @return the binding
     */
    @Bean
    public MeterBinding bulwarkMeterBinding(BulwarkMetrics metrics, BulwarkPolicies policies) {
        return new MeterBinding(metrics, policies);
    }

    /**
     * The binding of an application's policies to its meter registry. Thread-safe; closing is idempotent.
     */
    public static final class MeterBinding implements AutoCloseable {

        private static final System.Logger LOGGER = System.getLogger("dev.bulwark.spring");

        private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();

        MeterBinding(BulwarkMetrics metrics, BulwarkPolicies policies) {
            subscriptions.add(metrics.bind(policies.bulkheads()));
            subscriptions.add(policies.onRetryAdded(retry -> bind(() -> metrics.bind(retry), retry.name())));
            subscriptions.add(policies.onTimeoutAdded(timeout -> bind(() -> metrics.bind(timeout), timeout.name())));
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
