package dev.bulwark.spring;

import dev.bulwark.Bulkheads;
import dev.bulwark.spring.internal.AutoProxyRegistrar;
import dev.bulwark.spring.internal.BareDeclarationConverter;
import dev.bulwark.spring.internal.BulwarkAdvisor;
import dev.bulwark.spring.internal.BulwarkMethodInterceptor;
import dev.bulwark.spring.internal.DrainOnShutdown;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationPropertiesBinding;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Auto-configures Bulwark: the {@link Bulkheads} registry and {@link BulwarkPolicies} made from
 * {@link BulwarkProperties}, and the advisor that applies {@link Bulkhead @Bulkhead}, {@link Retry @Retry} and
 * {@link Timeout @Timeout} to bean methods, and the graceful drain of every bulkhead when the context shuts down
 * ({@code bulwark.drain-timeout}, default 30 seconds; see {@code docs/priorities.md}). Switch it off with
 * {@code bulwark.enabled=false}; replace a bean (other than the advisor) by declaring one of the same type.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "bulwark", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(BulwarkProperties.class)
@Import(AutoProxyRegistrar.class)
public final class BulwarkAutoConfiguration {

    /** Creates the configuration; Spring calls it. */
    public BulwarkAutoConfiguration() {
    }

    /**
     * The application's bulkheads by name.
     *
     * @return an empty registry; {@link BulwarkPolicies} fills it with the declared bulkheads
     */
    @Bean
    @ConditionalOnMissingBean
    public Bulkheads bulwarkBulkheads() {
        return Bulkheads.create();
    }

    /**
     * Lets a policy be declared with no settings of its own (a bare {@code name:} in YAML): it then takes every
     * setting from {@code bulwark.defaults}. Static, so that property binding can use it before this configuration
     * is made.
     *
     * @return the converter, used only while binding {@code bulwark.*}
     */
    @Bean
    @ConfigurationPropertiesBinding
    public static BareDeclarationConverter bulwarkBareDeclarationConverter() {
        return new BareDeclarationConverter();
    }

    /**
     * The application's named policies.
     *
     * @param bulkheads the registry
     * @param properties the declarations
     * @return the policies, every declared one already made
     */
    @Bean
    @ConditionalOnMissingBean
    public BulwarkPolicies bulwarkPolicies(Bulkheads bulkheads, BulwarkProperties properties) {
        return new BulwarkPolicies(bulkheads, properties);
    }

    /**
     * The advisor for the annotations. Static and infrastructure-role, so that it neither makes this configuration
     * early nor needs AspectJ; it looks the policies up on the first call.
     *
     * @param policies the policies, resolved lazily
     * @param fallbackListeners told of each fallback method taken (the metrics auto-configuration adds one)
     * @return the advisor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static BulwarkAdvisor bulwarkAdvisor(ObjectProvider<BulwarkPolicies> policies,
                                                ObjectProvider<FallbackMethodListener> fallbackListeners) {
        return new BulwarkAdvisor(new BulwarkMethodInterceptor(policies, fallbackListeners));
    }

    /**
     * Drains the registry's bulkheads during graceful shutdown, before the web server stops: they stop admitting,
     * refuse their queues, and the running calls get {@code bulwark.drain-timeout} (default 30 seconds) to finish.
     *
     * @param bulkheads the registry
     * @param environment the source of {@code bulwark.drain-timeout}
     * @return the lifecycle
     */
    @Bean
    @ConditionalOnMissingBean
    public DrainOnShutdown bulwarkDrainOnShutdown(Bulkheads bulkheads, Environment environment) {
        return new DrainOnShutdown(bulkheads,
                Binder.get(environment).bind("bulwark.drain-timeout", Duration.class).orElse(Duration.ofSeconds(30)));
    }
}
