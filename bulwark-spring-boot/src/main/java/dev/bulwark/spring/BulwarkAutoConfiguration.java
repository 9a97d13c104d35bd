package dev.bulwark.spring;

import dev.bulwark.Bulkheads;
import dev.bulwark.spring.internal.AutoProxyRegistrar;
import dev.bulwark.spring.internal.BulwarkAdvisor;
import dev.bulwark.spring.internal.BulwarkMethodInterceptor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;

/**
 * Auto-configures Bulwark: the {@link Bulkheads} registry and {@link BulwarkPolicies} made from
 * {@link BulwarkProperties}, and the advisor that applies {@link Bulkhead @Bulkhead}, {@link Retry @Retry} and
 * {@link Timeout @Timeout} to bean methods. Switch it off with {@code bulwark.enabled=false}; replace a bean by
 * declaring one of the same type.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "bulwark", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(BulwarkProperties.class)
@Import(AutoProxyRegistrar.class)
public class BulwarkAutoConfiguration {

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
}
