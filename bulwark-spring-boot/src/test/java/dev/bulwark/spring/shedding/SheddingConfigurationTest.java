package dev.bulwark.spring.shedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Priority;
import dev.bulwark.spring.BulwarkAutoConfiguration;
import dev.bulwark.spring.BulwarkSheddingAutoConfiguration;
import dev.bulwark.spring.internal.ReactiveSheddingFilter;
import dev.bulwark.spring.internal.RoutePriority;
import dev.bulwark.spring.internal.ServletSheddingFilter;
import dev.bulwark.spring.internal.SheddingRoutes;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * Issue 18 item 1: which filter a context gets, and bad route configuration failing the startup with a message
 * that names the property.
 */
class SheddingConfigurationTest {

    private static final AutoConfigurations BULWARK = AutoConfigurations.of(BulwarkAutoConfiguration.class,
            BulwarkSheddingAutoConfiguration.class);
    private static final String[] VALID = {"bulwark.bulkheads.api.max-concurrency=2",
        "bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api"};

    @Test
    void aServletApplicationGetsTheServletFilterAndAReactiveOneTheWebFilter() {
        new WebApplicationContextRunner().withConfiguration(BULWARK).withPropertyValues(VALID).run(context -> {
            assertThat(context).hasSingleBean(ServletSheddingFilter.class)
                    .doesNotHaveBean(ReactiveSheddingFilter.class);
            assertThat(context.getBean(SheddingRoutes.class).routes()).hasSize(1);
        });
        new ReactiveWebApplicationContextRunner().withConfiguration(BULWARK).withPropertyValues(VALID)
                .run(context -> assertThat(context).hasSingleBean(ReactiveSheddingFilter.class)
                        .doesNotHaveBean(ServletSheddingFilter.class));
    }

    @Test
    void noRoutesDisabledOrNotAWebApplicationMeansNoFilter() {
        new WebApplicationContextRunner().withConfiguration(BULWARK).run(context -> assertThat(context)
                .hasNotFailed().doesNotHaveBean(ServletSheddingFilter.class).doesNotHaveBean(SheddingRoutes.class));
        new WebApplicationContextRunner().withConfiguration(BULWARK).withPropertyValues(VALID)
                .withPropertyValues("bulwark.shedding.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ServletSheddingFilter.class));
        new ApplicationContextRunner().withConfiguration(BULWARK).withPropertyValues(VALID)
                .run(context -> assertThat(context).hasSingleBean(SheddingRoutes.class)
                        .doesNotHaveBean(ServletSheddingFilter.class).doesNotHaveBean(ReactiveSheddingFilter.class));
    }

    @Test
    void anUnknownBulkheadFailsTheStartupNamingTheProperty() {
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=nope")
                .hasMessageStartingWith("bulwark.shedding.routes[0].bulkhead names 'nope', but no bulkhead of that "
                        + "name is declared under bulwark.bulkheads (declared: [api])");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.global-bulkhead=all")
                .hasMessageStartingWith("bulwark.shedding.routes[0].key.global-bulkhead names 'all'");
        failure("bulwark.shedding.routes[0].pattern=/api/**")
                .hasMessageStartingWith("bulwark.shedding.routes[0].bulkhead is required");
    }

    @Test
    void anInvalidPatternFailsTheStartupNamingTheProperty() {
        failure("bulwark.shedding.routes[0].pattern=/api/{oops", "bulwark.shedding.routes[0].bulkhead=api")
                .hasMessageStartingWith("bulwark.shedding.routes[0].pattern '/api/{oops' is not a valid path pattern");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[1].pattern=/x/**", "bulwark.shedding.routes[1].bulkhead=api",
                "bulwark.shedding.routes[1].key.path-variable=tenant")
                .hasMessageStartingWith("bulwark.shedding.routes[1].key.path-variable 'tenant' is not a variable of "
                        + "the route's pattern /x/**");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].methods=GET,FETCH")
                .hasMessageStartingWith("bulwark.shedding.routes[0].methods has 'FETCH', not an HTTP method");
    }

    @Test
    void aStatusOutside4xxOr5xxFailsTheStartupNamingTheProperty() {
        for (int status : new int[] {200, 302, 399, 600}) {
            failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                    "bulwark.shedding.routes[0].status=" + status)
                    .hasMessage("bulwark.shedding.routes[0].status must be a 4xx or 5xx status (503 or 429, usually) "
                            + "but was " + status);
        }
        new WebApplicationContextRunner().withConfiguration(BULWARK).withPropertyValues(VALID)
                .withPropertyValues("bulwark.shedding.routes[0].status=429")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void contradictoryKeysFailTheStartupNamingTheProperty() {
        failure("bulwark.shedding.routes[0].pattern=/t/{tenant}/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.path-variable=tenant")
                .hasMessage("bulwark.shedding.routes[0].key sets more than one of header, path-variable and principal");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.max-partitions=5")
                .hasMessage("bulwark.shedding.routes[0].key needs one of header, path-variable or principal");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].retry-after=0s")
                .hasMessage("bulwark.shedding.routes[0].retry-after must be positive but was PT0S");
    }

    @Test
    void badKeyRulesFailTheStartupNamingTheProperty() {
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.max-length=0")
                .hasMessage("bulwark.shedding.routes[0].key.max-length must be at least 1 but was 0");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].key.pattern=[a-")
                .hasMessageStartingWith("bulwark.shedding.routes[0].key.pattern '[a-' is not a valid regular "
                        + "expression: ");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.max-length=8")
                .hasMessage("bulwark.shedding.routes[0].key needs one of header, path-variable or principal");
    }

    @Test
    void anUnknownDefaultPriorityOrAPriorityOnAKeyedRouteFailsTheStartupNamingTheProperty() {
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].priority-header=X-Priority",
                "bulwark.shedding.routes[0].default-priority=urgent")
                .hasMessage("bulwark.shedding.routes[0].default-priority 'urgent' is not a priority (one of "
                        + "[CRITICAL, HIGH, NORMAL, LOW, SHEDDABLE], case-insensitive)");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.header=X-Tenant", "bulwark.shedding.routes[0].priority-header=X-P")
                .hasMessageStartingWith("bulwark.shedding.routes[0].priority-header is set on a keyed route, but a "
                        + "keyed route admits every request at NORMAL priority");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].key.principal=true", "bulwark.shedding.routes[0].default-priority=LOW")
                .hasMessageStartingWith("bulwark.shedding.routes[0].default-priority is set on a keyed route");
        failure("bulwark.shedding.routes[0].pattern=/api/**", "bulwark.shedding.routes[0].bulkhead=api",
                "bulwark.shedding.routes[0].priority-header= ")
                .hasMessage("bulwark.shedding.routes[0].priority-header must not be blank");
        new WebApplicationContextRunner().withConfiguration(BULWARK).withPropertyValues(VALID)
                .withPropertyValues("bulwark.shedding.routes[0].priority-header=X-Priority",
                        "bulwark.shedding.routes[0].default-priority=sheddable")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(SheddingRoutes.class).routes().get(0).priority())
                            .isEqualTo(new RoutePriority("X-Priority", Priority.SHEDDABLE, true));
                });
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> failure(String... properties) {
        Throwable[] failure = new Throwable[1];
        new WebApplicationContextRunner().withConfiguration(BULWARK)
                .withPropertyValues("bulwark.bulkheads.api.max-concurrency=2").withPropertyValues(properties)
                .run(context -> failure[0] = context.getStartupFailure());
        assertThat(failure[0]).as("the startup failed").isNotNull();
        // The deepest of Bulwark's own exceptions (a parse failure below it is its cause).
        Throwable reported = null;
        for (Throwable cause = failure[0]; cause != null; cause = cause.getCause()) {
            if (cause instanceof IllegalStateException) {
                reported = cause;
            }
        }
        return assertThat(reported);
    }
}
