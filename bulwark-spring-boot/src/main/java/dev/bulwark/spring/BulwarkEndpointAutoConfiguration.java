package dev.bulwark.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Adds the {@link BulwarkEndpoint} when Spring Boot Actuator is on the class path. */
@AutoConfiguration(after = BulwarkAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(BulwarkPolicies.class)
public final class BulwarkEndpointAutoConfiguration {

    /** Creates the configuration; Spring calls it. */
    public BulwarkEndpointAutoConfiguration() {
    }

    /**
     * The endpoint.
     *
     * @param policies the policies it reports
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    public BulwarkEndpoint bulwarkEndpoint(BulwarkPolicies policies) {
        return new BulwarkEndpoint(policies);
    }
}
