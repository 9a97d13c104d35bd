package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.micrometer.BulkheadObservationContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Issue 40: the starter makes the bound bulkheads observe their waits and refusals in the application's
 * {@link ObservationRegistry} unless {@code bulwark.metrics.observations.enabled=false}, and passes the window of
 * maxima and percentiles from {@code bulwark.metrics.distribution-statistic-*} (real contexts, Micrometer's own
 * {@link TestObservationRegistry} and a real registry on a {@link MockClock}).
 */
class MetricsObservationWiringTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                    BulwarkMetricsAutoConfiguration.class))
            .withUserConfiguration(Registries.class)
            .withPropertyValues("bulwark.bulkheads.db.max-concurrency=1", "bulwark.bulkheads.db.max-queue=0");

    @Configuration(proxyBeanMethods = false)
    static class Registries {

        @Bean
        MockClock clock() {
            return new MockClock();
        }

        @Bean
        MeterRegistry meterRegistry(MockClock clock) {
            return new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
        }

        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }
    }

    private static void refuseInsideAnObservation(BulwarkPolicies policies, ObservationRegistry observations) {
        dev.bulwark.Bulkhead db = policies.bulkhead("db");
        Permit holder = db.acquire();
        Observation request = Observation.start("request", observations);
        try (Observation.Scope ignored = request.openScope()) {
            assertThatThrownBy(() -> db.call(() -> "never")).isInstanceOf(BulkheadRejectedException.class);
        } finally {
            request.stop();
            holder.close();
        }
    }

    @Test
    void withAnObservationRegistryBeanARefusalIsObservedByDefault() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            TestObservationRegistry observations = context.getBean(TestObservationRegistry.class);
            refuseInsideAnObservation(context.getBean(BulwarkPolicies.class), observations);

            TestObservationRegistryAssert.assertThat(observations)
                    .hasObservationWithNameEqualTo(BulkheadObservationContext.NAME).that()
                    .hasLowCardinalityKeyValue("name", "db")
                    .hasLowCardinalityKeyValue("outcome", "rejected.queue_full");
        });
    }

    @Test
    void observationsCanBeSwitchedOffAlone() {
        runner.withPropertyValues("bulwark.metrics.observations.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            TestObservationRegistry observations = context.getBean(TestObservationRegistry.class);
            refuseInsideAnObservation(context.getBean(BulwarkPolicies.class), observations);

            TestObservationRegistryAssert.assertThat(observations)
                    .hasNumberOfObservationsWithNameEqualTo(BulkheadObservationContext.NAME, 0);
            assertThat(context.getBean(MeterRegistry.class).get("bulwark.bulkhead.calls")
                    .tags("name", "db", "outcome", "rejected.queue_full").functionCounter().count()).isEqualTo(1.0);
        });
    }

    @Test
    void theWindowOfMaximaComesFromTheProperties() {
        runner.withPropertyValues("bulwark.metrics.distribution-statistic-expiry=10s",
                "bulwark.metrics.distribution-statistic-buffer-length=1").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(executionMaxAfter(context.getBean(BulwarkPolicies.class),
                            context.getBean(MeterRegistry.class), context.getBean(MockClock.class))).isZero();
                });
        runner.run(context -> assertThat(executionMaxAfter(context.getBean(BulwarkPolicies.class),
                context.getBean(MeterRegistry.class), context.getBean(MockClock.class))).isPositive());
    }

    /** Runs a call that holds its slot a while, then reads the execution max 11 s later on the registry's clock. */
    private static double executionMaxAfter(BulwarkPolicies policies, MeterRegistry registry, MockClock clock) {
        policies.bulkhead("db").run(() -> {
            long start = System.nanoTime();
            while (System.nanoTime() - start < 1_000_000) {
                Thread.onSpinWait(); // a measurable execution, whatever the clock's resolution
            }
        });
        clock.add(Duration.ofSeconds(11));
        return registry.get("bulwark.bulkhead.execution.max").tags("name", "db").timeGauge()
                .value(TimeUnit.NANOSECONDS);
    }

    @Test
    void aBadWindowFailsTheStartupNamingTheProperty() {
        runner.withPropertyValues("bulwark.metrics.distribution-statistic-buffer-length=0").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining("IllegalArgumentException: "
                        + "bulwark.metrics.distribution-statistic-buffer-length: bufferLength"));
    }
}
