package dev.bulwark.spring;

import dev.bulwark.spring.internal.ConcurrencyLimitProcessor;
import dev.bulwark.spring.internal.RetryableProcessor;
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
 * Serves Spring Framework 7's {@code @ConcurrencyLimit} and {@code @Retryable} (package
 * {@code org.springframework.resilience.annotation}) with Bulwark bulkheads and retries, when
 * {@code bulwark.spring-annotations.enabled=true}: Spring's own post-processors for them are removed and each
 * annotated bean instance gets bulkheads and retries named {@code <bean name>.<method name>} (or {@code <bean name>}
 * for an annotation on the class), the bulkheads configured under {@code bulwark.bulkheads[<name>]}; see
 * {@code docs/spring-boot.md}. Needs Spring Framework 7 (Spring Boot 4): on Spring 6 the property fails the startup
 * with a message saying so.
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
         * Removes Spring's {@code ConcurrencyLimitBeanPostProcessor} and {@code RetryAnnotationBeanPostProcessor}, so
         * that neither applies twice.
         *
         * @return the registry post-processor
         */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        public static SpringProcessorRemoval bulwarkSpringProcessorRemoval() {
            return new SpringProcessorRemoval();
        }

        /**
         * Proxies each bean with {@code @Retryable} methods, as Spring's post-processor does, with Bulwark retries.
         * Declared before the {@code @ConcurrencyLimit} one, as Spring declares its own: at the same order, a method
         * with both is throttled outside its retry, as in Spring. Static, so that it does not make this configuration
         * early.
         *
         * @param policies the policies, which register the singleton beans' retries
         * @param properties the declarations, checked for a retry declared under an annotated method's name
         * @return the post-processor
         */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        public static RetryableProcessor bulwarkRetryableProcessor(ObjectProvider<BulwarkPolicies> policies,
                                                                   ObjectProvider<BulwarkProperties> properties) {
            return new RetryableProcessor(policies, properties);
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
                    + "(Spring Boot 4), whose @ConcurrencyLimit and @Retryable it serves; this application runs Spring "
                    + "Framework "
                    + org.springframework.core.SpringVersion.getVersion() + ": remove the property");
        }
    }
}
