package dev.bulwark.spring;

import dev.bulwark.spring.internal.ConcurrencyLimitProcessor;
import dev.bulwark.spring.internal.SpringProcessorRemoval;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * Serves Spring Framework 7's {@code @ConcurrencyLimit} (package {@code org.springframework.resilience.annotation})
 * with Bulwark bulkheads, when {@code bulwark.spring-annotations.enabled=true}: Spring's own post-processor for it is
 * removed and each annotated bean instance gets bulkheads named {@code <bean name>.<method name>} (or
 * {@code <bean name>} for an annotation on the class), configured under {@code bulwark.bulkheads[<name>]}; see
 * {@code docs/spring-boot.md}. Needs Spring Framework 7 (Spring Boot 4): on Spring 6 the property fails the startup
 * with a message saying so. {@code @Retryable} stays Spring's.
 */
@AutoConfiguration(after = BulwarkAutoConfiguration.class)
@ConditionalOnProperty(prefix = "bulwark.spring-annotations", name = "enabled", havingValue = "true")
public final class BulwarkSpringAnnotationsAutoConfiguration {

    /** Creates the configuration; Spring calls it. */
    public BulwarkSpringAnnotationsAutoConfiguration() {
    }

    /** On Spring Framework 7: Bulwark's post-processor in place of Spring's. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.resilience.annotation.ConcurrencyLimit")
    @ConditionalOnBean(BulwarkPolicies.class)
    public static class Served {

        /** Creates the configuration; Spring calls it. */
        public Served() {
        }

        /**
         * Removes Spring's {@code ConcurrencyLimitBeanPostProcessor}, so that its throttle never applies twice.
         *
         * @return the registry post-processor
         */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        public static SpringProcessorRemoval bulwarkSpringProcessorRemoval() {
            return new SpringProcessorRemoval();
        }

        /**
         * Proxies each bean with {@code @ConcurrencyLimit} methods, as Spring's post-processor does, with Bulwark
         * bulkheads. Static, so that it does not make this configuration early.
         *
         * @param policies the policies, whose registry receives the singleton beans' bulkheads
         * @param properties the settings under {@code bulwark.bulkheads[<name>]}
         * @return the post-processor
         */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        public static ConcurrencyLimitProcessor bulwarkConcurrencyLimitProcessor(
                ObjectProvider<BulwarkPolicies> policies, ObjectProvider<BulwarkProperties> properties) {
            return new ConcurrencyLimitProcessor(policies, properties);
        }
    }

    /** On Spring Framework 6: the property cannot be honoured, and the startup fails saying why. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("org.springframework.resilience.annotation.ConcurrencyLimit")
    public static class Unavailable {

        /**
         * Fails: the annotations do not exist before Spring Framework 7.
         *
         * @throws IllegalStateException always
         */
        public Unavailable() {
            throw new IllegalStateException("bulwark.spring-annotations.enabled=true needs Spring Framework 7 "
                    + "(Spring Boot 4), whose @ConcurrencyLimit it serves; this application runs Spring Framework "
                    + org.springframework.core.SpringVersion.getVersion() + ": remove the property");
        }
    }
}
