package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

/**
 * {@code bulwark.spring-annotations.enabled=true} on both Boot lines: on Boot 4 (Spring Framework 7) Bulwark serves
 * {@code @ConcurrencyLimit} (the tests of bulwark-spring-boot-boot4-tests show how); on Boot 3.5, where the annotation
 * does not exist, the startup fails saying so rather than ignoring the property.
 */
class SpringAnnotationsPropertyTest {

    private static final boolean SPRING_7 =
            ClassUtils.isPresent("org.springframework.resilience.annotation.ConcurrencyLimit", null);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                    BulwarkSpringAnnotationsAutoConfiguration.class));

    @Test
    void thePropertyServesSpringsAnnotationOnSpring7AndFailsTheStartupOnSpring6() {
        assertThat(SPRING_7).isEqualTo("4".equals(System.getProperty("bulwark.expected.boot.major", "3")));
        runner.withPropertyValues("bulwark.spring-annotations.enabled=true").run(context -> {
            if (SPRING_7) {
                assertThat(context).hasNotFailed().hasBean("bulwarkConcurrencyLimitProcessor");
            } else {
                assertThat(context).getFailure().rootCause().hasMessageStartingWith(
                        "bulwark.spring-annotations.enabled=true needs Spring Framework 7 (Spring Boot 4)");
            }
        });
    }

    @Test
    void offByDefault() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("bulwarkConcurrencyLimitProcessor"));
    }
}
