package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Bulkheads;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.micrometer.BulwarkMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Issue 10: what the auto-configuration makes from properties, in real application contexts. */
class BulwarkAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(BulwarkAutoConfiguration.class, BulwarkMetricsAutoConfiguration.class,
                    BulwarkEndpointAutoConfiguration.class));

    @Test
    void declaredPoliciesAreMadeAtStartupWithTheDefaultsFillingTheGaps() {
        runner.withPropertyValues("bulwark.defaults.bulkhead.max-queue=5",
                "bulwark.bulkheads.inventory-db.max-concurrency=20", "bulwark.bulkheads.inventory-db.max-wait=200ms",
                "bulwark.bulkheads.payments.max-queue=1", "bulwark.retries.orders.max-retries=2",
                "bulwark.timeouts.pricing.duration=500ms").run(context -> {
                    Bulkheads bulkheads = context.getBean(Bulkheads.class);
                    dev.bulwark.Bulkhead inventory = bulkheads.find("inventory-db").orElseThrow();
                    assertThat(inventory.maxConcurrency()).isEqualTo(20);
                    assertThat(inventory.maxQueue()).isEqualTo(5);
                    assertThat(inventory.maxWait()).contains(Duration.ofMillis(200));
                    dev.bulwark.Bulkhead payments = bulkheads.find("payments").orElseThrow();
                    assertThat(payments.maxConcurrency()).isEqualTo(10);
                    assertThat(payments.maxQueue()).isEqualTo(1);
                    assertThat(payments.maxWait()).isEmpty();
                    BulwarkPolicies policies = context.getBean(BulwarkPolicies.class);
                    assertThat(policies.retries()).singleElement().satisfies(retry -> {
                        assertThat(retry.name()).isEqualTo("orders");
                        assertThat(retry.maxRetries()).isEqualTo(2);
                    });
                    assertThat(policies.timeout("pricing").timeout()).isEqualTo(Duration.ofMillis(500));
                    assertThat(policies.bulkhead("inventory-db")).isSameAs(inventory);
                });
    }

    @Test
    void anInvalidValueFailsTheStartupNamingTheKey() {
        runner.withPropertyValues("bulwark.bulkheads.inventory-db.max-concurrency=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("maxConcurrency");
            assertThat(context.getStartupFailure()).hasStackTraceContaining("bulwark.bulkheads.inventory-db");
        });
    }

    @Test
    void aBadValueOfTheDefaultsFailsTheStartupNamingTheDefaultsKeyNotAPolicyThatInheritsIt() {
        runner.withPropertyValues("bulwark.defaults.bulkhead.max-concurrency=0", "bulwark.bulkheads.b.max-queue=5")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining(
                            "bulwark.defaults.bulkhead: maxConcurrency must be at least 1 but was 0");
                    java.io.StringWriter trace = new java.io.StringWriter();
                    context.getStartupFailure().printStackTrace(new java.io.PrintWriter(trace));
                    assertThat(trace.toString()).doesNotContain("bulwark.bulkheads.b");
                });
        runner.withPropertyValues("bulwark.defaults.retry.max-retries=-1", "bulwark.retries.r.jitter=0.1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("bulwark.defaults.retry: ");
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("-1");
                });
        runner.withPropertyValues("bulwark.defaults.timeout.duration=-1s",
                "bulwark.timeouts.t.interrupt-on-timeout=true").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("bulwark.defaults.timeout: ");
                });
    }

    @Test
    void aBadValueOfTheDefaultsFailsTheStartupEvenWhenNoPolicyIsDeclared() {
        // Otherwise it would surface only at the first use of an undeclared name, under that name's key.
        runner.withPropertyValues("bulwark.defaults.bulkhead.max-queue=-1").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("bulwark.defaults.bulkhead: ");
        });
    }

    @Test
    void aNamedBackoffMaxWithoutBackoffInitialFailsTheStartupInsteadOfTakingTheDefaultsWait() {
        runner.withPropertyValues("bulwark.retries.r.backoff-max=1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(
                    "bulwark.retries.r: backoff-initial and backoff-max must be set together but were null and PT1S");
        });
        runner.withPropertyValues("bulwark.defaults.retry.delay=100ms", "bulwark.retries.r.backoff-max=1s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining(
                            "bulwark.retries.r: backoff-initial and backoff-max must be set together");
                });
    }

    @Test
    void aRetryOnClassThatIsNotAThrowableFailsTheStartupNamingItAndTheKey() {
        runner.withPropertyValues("bulwark.retries.r.retry-on=java.io.IOException,java.lang.String")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalArgumentException.class)
                            .hasMessage("retry-on must list exception classes but java.lang.String is not a "
                                    + "Throwable");
                    assertThat(context.getStartupFailure()).hasStackTraceContaining(
                            "bulwark.retries.r: retry-on must list exception classes but java.lang.String");
                });
    }

    @Test
    void aTimeoutWithoutADurationIsRefusedWithTheKeyToSet() {
        runner.run(context -> assertThatThrownBy(() -> context.getBean(BulwarkPolicies.class).timeout("pricing"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bulwark.timeouts.pricing")
                .hasMessageContaining("duration"));
    }

    @Test
    void withAMeterRegistryEveryPolicyIsBoundIncludingOnesMadeLater() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("bulwark.bulkheads.inventory-db.max-concurrency=20",
                        "bulwark.retries.orders.max-retries=2", "bulwark.defaults.timeout.duration=1s")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(context).hasSingleBean(BulwarkMetrics.class);
                    assertThat(registry.get("bulwark.bulkhead.max.concurrency").tags("name", "inventory-db").gauge()
                            .value()).isEqualTo(20.0);
                    assertThat(registry.find("bulwark.retry.calls").tags("name", "orders").counters()).isNotEmpty();

                    BulwarkPolicies policies = context.getBean(BulwarkPolicies.class);
                    policies.bulkhead("late");
                    policies.timeout("late-timeout");
                    assertThat(registry.find("bulwark.bulkhead.executing").tags("name", "late").gauge()).isNotNull();
                    assertThat(registry.find("bulwark.timeout.calls").tags("name", "late-timeout").counters())
                            .isNotEmpty();
                });
    }

    @Test
    void withoutAMeterRegistryNothingIsBoundAndNothingFails() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(BulwarkMetrics.class);
            assertThat(context).hasSingleBean(BulwarkPolicies.class);
        });
    }

    @Test
    void bulwarkEnabledFalseSwitchesEverythingOff() {
        runner.withPropertyValues("bulwark.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(BulwarkPolicies.class);
            assertThat(context).doesNotHaveBean(BulwarkEndpoint.class);
        });
    }

    @Test
    void theEndpointReportsLimitsAndLiveCounts() {
        runner.withPropertyValues("bulwark.bulkheads.inventory-db.max-concurrency=2",
                "bulwark.bulkheads.inventory-db.max-queue=3").run(context -> {
                    dev.bulwark.Bulkhead inventory = context.getBean(Bulkheads.class).find("inventory-db")
                            .orElseThrow();
                    try (Permit ignored = inventory.acquire()) {
                        assertThat(context.getBean(BulwarkEndpoint.class).report().bulkheads()).singleElement()
                                .isEqualTo(new BulwarkEndpoint.BulkheadReport("inventory-db", 2, 3, null, 1, 0));
                    }
                });
    }

    @Test
    void anApplicationsOwnRegistryIsUsed() {
        runner.withUserConfiguration(OwnRegistry.class).withPropertyValues("bulwark.bulkheads.db.max-queue=2")
                .run(context -> {
                    Bulkheads bulkheads = context.getBean(Bulkheads.class);
                    assertThat(bulkheads).isSameAs(context.getBean(OwnRegistry.class).bulkheads);
                    assertThat(bulkheads.find("cluster")).isPresent();
                    assertThat(bulkheads.find("db")).isPresent();
                });
    }

    @Test
    void aMissingFallbackMethodFailsTheStartup() {
        runner.withUserConfiguration(BrokenFallbackConfiguration.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("Fallback method 'nowhere'");
        });
    }

    @Test
    void anAnnotationOnANonPublicMethodFailsTheStartupNamingTheMethod() {
        runner.withUserConfiguration(NonPublicConfiguration.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("@Bulkhead on")
                    .hasStackTraceContaining("NonPublic.call()").hasStackTraceContaining("public methods only");
        });
    }

    @Test
    void aClassAnnotationAppliesToThePublicMethodsOnly() {
        runner.withUserConfiguration(ClassAnnotatedConfiguration.class).run(context -> {
            ClassAnnotated bean = context.getBean(ClassAnnotated.class);
            dev.bulwark.Bulkhead db = context.getBean(BulwarkPolicies.class).bulkhead("class-db");
            assertThat(bean.inside(db)).as("a public method runs under the bulkhead").isEqualTo(1);
            assertThat(bean.packageVisible(db)).as("a package-visible one does not").isZero();
        });
    }

    @Test
    void aRetryOnRefusalsDoesNotRetryADrainedBulkhead() {
        runner.withUserConfiguration(RetriedConfiguration.class)
                .withPropertyValues("bulwark.retries.refused.retry-on=dev.bulwark.BulkheadRejectedException",
                        "bulwark.retries.refused.max-retries=3").run(context -> {
                    BulwarkPolicies policies = context.getBean(BulwarkPolicies.class);
                    List<Integer> attempts = new CopyOnWriteArrayList<>();
                    policies.retry("refused").addListener(new dev.bulwark.RetryListener() {
                        @Override
                        public void failed(int made, Throwable failure, boolean retriesExhausted) {
                            attempts.add(made);
                        }
                    });
                    policies.bulkhead("drained-db").drain(Duration.ZERO);

                    Throwable thrown = catchThrowable(() -> context.getBean(Retried.class).call());

                    assertThat(thrown).isInstanceOf(BulkheadRejectedException.class);
                    assertThat(((BulkheadRejectedException) thrown).rejection().reason())
                            .isEqualTo(Rejection.Reason.CLOSED);
                    assertThat(attempts).as("one attempt, not retried").containsExactly(1);
                });
    }

    @Test
    void configurationMetadataListsTheKeysForIdes() throws Exception {
        String metadata = Files.readString(Path.of(System.getProperty("bulwark.spring.classes"),
                "META-INF", "spring-configuration-metadata.json"));

        assertThat(metadata).contains("\"bulwark.bulkheads\"", "\"bulwark.defaults.bulkhead.max-concurrency\"",
                "\"bulwark.defaults.retry.retry-on\"", "\"bulwark.defaults.timeout.duration\"", "\"bulwark.enabled\"",
                "\"bulwark.metrics.enabled\"");
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {
        final Bulkheads bulkheads = Bulkheads.create();

        @Bean
        Bulkheads bulkheads() {
            bulkheads.register(dev.bulwark.Bulkhead.builder().name("cluster").build());
            return bulkheads;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BrokenFallbackConfiguration {
        @Bean
        Broken broken() {
            return new Broken();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NonPublicConfiguration {
        @Bean
        NonPublic nonPublic() {
            return new NonPublic();
        }
    }

    /**
     * Carries an annotation on a method a proxy must not be relied on to advise, next to a public one that Spring
     * finds first (so the check cannot wait for the non-public method to be asked about).
     */
    public static class NonPublic {
        @dev.bulwark.spring.Bulkhead("db")
        public String first() {
            return "proxied";
        }

        @dev.bulwark.spring.Bulkhead("db")
        String call() {
            return "never proxied";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClassAnnotatedConfiguration {
        @Bean
        ClassAnnotated classAnnotated() {
            return new ClassAnnotated();
        }
    }

    /** Every public method runs under the bulkhead; the others do not. */
    @dev.bulwark.spring.Bulkhead("class-db")
    public static class ClassAnnotated {
        /** How many calls hold a slot of {@code db} while this method runs. */
        public int inside(dev.bulwark.Bulkhead db) {
            return db.executingCount();
        }

        int packageVisible(dev.bulwark.Bulkhead db) {
            return db.executingCount();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RetriedConfiguration {
        @Bean
        Retried retried() {
            return new Retried();
        }
    }

    /** Retries the refusals of its bulkhead. */
    public static class Retried {
        @dev.bulwark.spring.Retry("refused")
        @dev.bulwark.spring.Bulkhead("drained-db")
        public String call() {
            return "ran";
        }
    }

    /** Names a fallback method that does not exist. */
    public static class Broken {
        @dev.bulwark.spring.Bulkhead(value = "db", fallbackMethod = "nowhere")
        public String call() {
            return "never proxied";
        }
    }
}
