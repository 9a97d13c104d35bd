package dev.bulwark.spring.internal;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;

/**
 * Removes Spring's own {@code ConcurrencyLimitBeanPostProcessor} and {@code RetryAnnotationBeanPostProcessor}
 * (registered by {@code @EnableResilientMethods} or declared by the application) before any bean post-processor is
 * made, so that Spring's throttle and retry never apply together with Bulwark's ({@link ConcurrencyLimitProcessor},
 * {@link RetryableProcessor}). Runs once, on the context's refresh thread.
 */
public final class SpringProcessorRemoval implements BeanDefinitionRegistryPostProcessor {

    /** Creates the registry post-processor; the Spring 7 auto-configuration declares it. */
    public SpringProcessorRemoval() {
    }

    /** Removes the definitions of Spring's two post-processors, whoever registered them. */
    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
        if (!(registry instanceof ConfigurableListableBeanFactory)) {
            return;
        }
        // Every configuration class has been parsed by now (ConfigurationClassPostProcessor runs first, being
        // PriorityOrdered); the type of an @Bean method's bean is read from its return type without making it.
        ConfigurableListableBeanFactory beanFactory = (ConfigurableListableBeanFactory) registry;
        for (String type : new String[] {SpringResilience.CONCURRENCY_LIMIT_PROCESSOR,
            SpringResilience.RETRY_PROCESSOR}) {
            for (String name : beanFactory.getBeanNamesForType(SpringResilience.type(type), true, false)) {
                if (registry.containsBeanDefinition(name)) {
                    registry.removeBeanDefinition(name);
                }
            }
        }
    }

    /** Does nothing: the definitions are removed from the registry, before this stage. */
    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
        // All the work is done on the registry above.
    }
}
