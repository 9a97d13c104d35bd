package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Issue 40: with a Prometheus registry the starter publishes the bulkheads' {@code _bucket} series by default,
 * {@code bulwark.metrics.histograms.enabled=false} turns them off and {@code bulwark.metrics.histograms.buckets}
 * chooses their bounds (a real context and a real Prometheus registry).
 */
class HistogramPropertiesWiringTest {

    private static final String BUCKET = "bulwark_bulkhead_execution_duration_seconds_bucket{name=\"db\",le=\"";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                    BulwarkMetricsAutoConfiguration.class))
            .withUserConfiguration(Prometheus.class)
            .withPropertyValues("bulwark.bulkheads.db.max-concurrency=2");

    @Configuration(proxyBeanMethods = false)
    static class Prometheus {

        @Bean
        PrometheusMeterRegistry meterRegistry() {
            return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        }
    }

    private static long bucketLines(String scrape) {
        return Pattern.compile("^" + Pattern.quote(BUCKET), Pattern.MULTILINE).matcher(scrape).results().count();
    }

    @Test
    void bucketsArePublishedByDefaultAndTheirBoundsComeFromTheProperties() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(BulwarkPolicies.class).bulkhead("db").run(() -> { });
            String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
            assertThat(bucketLines(scrape)).isEqualTo(17L);
            assertThat(scrape).contains(BUCKET + "+Inf\"} 1");
        });
        runner.withPropertyValues("bulwark.metrics.histograms.buckets=1ms,1s").run(context -> {
            assertThat(context).hasNotFailed();
            String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
            assertThat(bucketLines(scrape)).isEqualTo(3L);
            assertThat(scrape).contains(BUCKET + "0.001\"}", BUCKET + "1.0\"}");
        });
    }

    @Test
    void theyCanBeTurnedOffAndBadBoundsFailTheStartupNamingTheProperty() {
        runner.withPropertyValues("bulwark.metrics.histograms.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(PrometheusMeterRegistry.class).scrape()).doesNotContain("_bucket")
                    .contains("bulwark_bulkhead_execution_seconds_count{name=\"db\"}");
        });
        runner.withPropertyValues("bulwark.metrics.histograms.buckets=1s,1ms").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "IllegalArgumentException: bulwark.metrics.histograms.buckets: upperBounds[1]"));
    }
}
