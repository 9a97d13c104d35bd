package dev.bulwark.spring;

import dev.bulwark.spring.internal.OnSheddingRoutesCondition;
import dev.bulwark.spring.internal.ReactiveSheddingFilter;
import dev.bulwark.spring.internal.ServletSheddingFilter;
import dev.bulwark.spring.internal.SheddingRoutes;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configures inbound load shedding from {@link BulwarkSheddingProperties}: in a servlet (Spring MVC)
 * application a servlet filter, in a reactive (WebFlux) application a {@code WebFilter}, each admitting the requests
 * of {@code bulwark.shedding.routes} through their bulkheads. Present only when at least one route is declared and
 * {@code bulwark.shedding.enabled} is not {@code false}. The routes are checked when the context starts; a bad one
 * fails the startup with a message naming the property. See {@code docs/load-shedding.md}.
 */
@AutoConfiguration(after = BulwarkAutoConfiguration.class)
@ConditionalOnBean(BulwarkPolicies.class)
@ConditionalOnProperty(prefix = "bulwark.shedding", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(OnSheddingRoutesCondition.class)
@EnableConfigurationProperties(BulwarkSheddingProperties.class)
public final class BulwarkSheddingAutoConfiguration {

    /** Creates the configuration; Spring calls it. */
    public BulwarkSheddingAutoConfiguration() {
    }

    /**
     * The checked routes.
     *
     * @param shedding the route declarations
     * @param policies the named policies, whose bulkheads the routes use
     * @param bulwark the policy declarations
     * @param keyValidator the application's {@link SheddingKeyValidator} bean, if it has one
     * @return the routes
     * @throws IllegalStateException when a route is invalid; the message starts with the property
     */
    @Bean
    @ConditionalOnMissingBean
    public SheddingRoutes bulwarkSheddingRoutes(BulwarkSheddingProperties shedding, BulwarkPolicies policies,
                                                BulwarkProperties bulwark,
                                                ObjectProvider<SheddingKeyValidator> keyValidator) {
        return SheddingRouteFactory.routes(shedding, policies, bulwark, keyValidator.getIfAvailable());
    }

    /** The servlet filter, in servlet web applications. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = {"jakarta.servlet.Filter", "org.springframework.web.filter.OncePerRequestFilter"})
    static class Servlet {

        @Bean
        @ConditionalOnMissingBean
        ServletSheddingFilter bulwarkServletSheddingFilter(BulwarkSheddingProperties shedding,
                                                           ObjectProvider<SheddingRoutes> routes) {
            return new ServletSheddingFilter(routes::getObject, shedding.order(),
                    shedding.servlet().asyncTimeout());
        }
    }

    /** The WebFilter, in reactive web applications. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = {"org.springframework.web.server.WebFilter", "reactor.core.publisher.Mono"})
    static class Reactive {

        @Bean
        @ConditionalOnMissingBean
        ReactiveSheddingFilter bulwarkReactiveSheddingFilter(BulwarkSheddingProperties shedding,
                                                             ObjectProvider<SheddingRoutes> routes) {
            return new ReactiveSheddingFilter(routes::getObject, shedding.order(),
                    reactor.core.scheduler.Schedulers.parallel());
        }
    }
}
