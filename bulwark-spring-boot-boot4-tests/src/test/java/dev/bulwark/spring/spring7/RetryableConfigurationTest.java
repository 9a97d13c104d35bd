package dev.bulwark.spring.spring7;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.spring.BulwarkAutoConfiguration;
import dev.bulwark.spring.BulwarkSpringAnnotationsAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.Retryable;

/**
 * Bulwark serving {@code @Retryable} in plain application contexts: the settings it refuses, each failing the
 * startup with a message naming the method or the key, where Spring fails every call.
 */
class RetryableConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                    BulwarkSpringAnnotationsAutoConfiguration.class))
            .withPropertyValues("bulwark.spring-annotations.enabled=true", "test.retries=1", "test.delay=1",
                    "test.jitter=0");

    @Test
    void validSettingsStart() {
        runner.withUserConfiguration(Config.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aNegativeMaxRetriesFailsTheStartup() throws Exception {
        String method = Service.class.getMethod("call").toString();
        runner.withUserConfiguration(Config.class).withPropertyValues("test.retries=-1")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessage(
                        "@Retryable on " + method + ": maxRetries must not be negative but is -1"));
    }

    @Test
    void aJitterWithoutADelayFailsTheStartup() {
        runner.withUserConfiguration(Config.class).withPropertyValues("test.delay=0", "test.jitter=5")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageEndingWith(
                        "a jitter needs a delay of at least 1 ms (Spring's backoff divides by the delay and fails "
                                + "every call)"));
    }

    @Test
    void anUnparsableStringFailsTheStartup() {
        runner.withUserConfiguration(Config.class).withPropertyValues("test.retries=many")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining("@Retryable on ")
                        .hasStackTraceContaining("many"));
    }

    @Test
    void aDeclarationUnderTheRetrysNameIsRefused() {
        runner.withUserConfiguration(Config.class).withPropertyValues("bulwark.retries[service.call].max-retries=5")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageStartingWith(
                        "bulwark.retries[service.call] must not be declared"));
    }

    /** A service whose retry takes its settings from placeholders. */
    public static class Service {
        @Retryable(maxRetriesString = "${test.retries}", delayString = "${test.delay}",
                jitterString = "${test.jitter}")
        public String call() {
            return "done";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Service service() {
            return new Service();
        }
    }
}
