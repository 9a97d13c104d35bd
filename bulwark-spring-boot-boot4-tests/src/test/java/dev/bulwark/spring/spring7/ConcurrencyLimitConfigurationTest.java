package dev.bulwark.spring.spring7;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkheads;
import dev.bulwark.spring.BulwarkAutoConfiguration;
import dev.bulwark.spring.BulwarkSpringAnnotationsAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.ConcurrencyLimitBeanPostProcessor;
import org.springframework.resilience.annotation.EnableResilientMethods;

/**
 * The settings Bulwark refuses when it serves {@code @ConcurrencyLimit}: each fails the startup with a message naming
 * the key or the method, where Spring would fail the first call or ignore the setting.
 */
class ConcurrencyLimitConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                    BulwarkSpringAnnotationsAutoConfiguration.class))
            .withPropertyValues("bulwark.spring-annotations.enabled=true");

    @Test
    void aDeclaredLimitIsRefusedTheAnnotationHasIt() {
        runner.withUserConfiguration(Blocking.Config.class)
                .withPropertyValues("bulwark.bulkheads[blocking.call].max-concurrency=3")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessage(
                        "bulwark.bulkheads[blocking.call].max-concurrency must not be set: the limit of "
                                + "@ConcurrencyLimit on " + Blocking.class.getMethod("call") + " comes from the "
                                + "annotation (2)"));
    }

    @Test
    void aQueueForRejectIsRefused() {
        runner.withUserConfiguration(Rejecting.Config.class)
                .withPropertyValues("bulwark.bulkheads[rejecting.call].max-queue=3")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageStartingWith(
                        "bulwark.bulkheads[rejecting.call].max-queue and max-wait must not be set"));
    }

    @Test
    void anInvalidLimitFailsTheStartupNotTheFirstCall() {
        runner.withUserConfiguration(Blocking.Config.class).withPropertyValues("test.limit=-2")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining(
                        "must be configured with a valid limit (-1 for unbounded, 0 to refuse every call, or "
                                + "positive) but has -2"));
        runner.withUserConfiguration(Blocking.Config.class).withPropertyValues("test.limit=many")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining(
                        "limitString must be an integer but resolved to 'many'"));
    }

    @Test
    void twoAnnotatedOverloadsAreRefusedTheyWouldShareAName() {
        runner.withUserConfiguration(Overloaded.Config.class)
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining(
                        "Bulwark names a method's bulkhead overloaded.call, so that only one method of that name "
                                + "may carry its own @ConcurrencyLimit"));
    }

    @Test
    void aDeclarationGivesTheQueueAndTheAnnotationTheLimit() {
        runner.withUserConfiguration(Blocking.Config.class, EnableResilient.class)
                .withPropertyValues("bulwark.bulkheads[blocking.call].max-queue=7")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(ConcurrencyLimitBeanPostProcessor.class);
                    context.getBean(Blocking.class).call();
                    dev.bulwark.Bulkhead bulkhead = context.getBean(Bulkheads.class).find("blocking.call")
                            .orElseThrow();
                    assertThat(bulkhead.maxConcurrency()).isEqualTo(2);
                    assertThat(bulkhead.maxQueue()).isEqualTo(7);
                });
    }

    @Test
    void withoutThePropertySpringServesItsAnnotation() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                        BulwarkSpringAnnotationsAutoConfiguration.class))
                .withUserConfiguration(Blocking.Config.class, EnableResilient.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(ConcurrencyLimitBeanPostProcessor.class);
                    assertThat(context.getBean(Bulkheads.class).find("blocking.call")).isEmpty();
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableResilientMethods
    static class EnableResilient {
    }

    public static class Blocking {
        @ConcurrencyLimit(limitString = "${test.limit:2}")
        public String call() {
            return "done";
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {
            @Bean
            Blocking blocking() {
                return new Blocking();
            }
        }
    }

    public static class Rejecting {
        @ConcurrencyLimit(limit = 2, policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
        public String call() {
            return "done";
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {
            @Bean
            Rejecting rejecting() {
                return new Rejecting();
            }
        }
    }

    public static class Overloaded {
        @ConcurrencyLimit(2)
        public String call() {
            return "done";
        }

        @ConcurrencyLimit(3)
        public String call(String argument) {
            return argument;
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {
            @Bean
            Overloaded overloaded() {
                return new Overloaded();
            }
        }
    }
}
