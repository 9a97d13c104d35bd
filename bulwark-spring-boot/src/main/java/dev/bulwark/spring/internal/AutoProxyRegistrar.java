package dev.bulwark.spring.internal;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists, so that {@link BulwarkAdvisor} applies even without Spring Boot's AOP
 * auto-configuration or AspectJ (the way {@code @EnableTransactionManagement} does). Honors
 * {@code spring.aop.proxy-target-class} (default {@code true}, as in Spring Boot).
 */
public final class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    private Environment environment;

    /** Creates the registrar; Spring calls it when importing the auto-configuration. */
    public AutoProxyRegistrar() {
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        if (environment == null || environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)) {
            AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
        }
    }
}
