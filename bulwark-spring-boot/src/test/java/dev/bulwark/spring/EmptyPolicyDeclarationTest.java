package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkheads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * A policy declared with no settings of its own (a bare {@code name:} in YAML) is declared: made at startup from
 * the defaults, and checked like any other. The YAML goes through Boot's own loader, as an application's does.
 */
class EmptyPolicyDeclarationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(BulwarkAutoConfiguration.class));

    private ApplicationContextRunner withYaml(String yaml) {
        return runner.withInitializer(context -> {
            try {
                List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application.yml",
                        new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
                sources.forEach(source -> context.getEnvironment().getPropertySources().addFirst(source));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aBareNameDeclaresEachKindOfPolicyWithTheDefaults() {
        withYaml("""
                bulwark:
                  defaults:
                    bulkhead: { max-queue: 3 }
                    timeout: { duration: 2s }
                  bulkheads:
                    reports:
                  retries:
                    orders:
                  timeouts:
                    pricing:
                """).run(context -> {
                    assertThat(context).hasNotFailed();
                    dev.bulwark.Bulkhead reports = context.getBean(Bulkheads.class).find("reports").orElseThrow();
                    assertThat(reports.maxConcurrency()).isEqualTo(10);
                    assertThat(reports.maxQueue()).isEqualTo(3);
                    BulwarkPolicies policies = context.getBean(BulwarkPolicies.class);
                    assertThat(policies.retries()).singleElement().satisfies(retry -> {
                        assertThat(retry.name()).isEqualTo("orders");
                        assertThat(retry.maxRetries()).isEqualTo(3);
                    });
                    assertThat(policies.timeouts()).singleElement().satisfies(timeout -> {
                        assertThat(timeout.name()).isEqualTo("pricing");
                        assertThat(timeout.timeout()).isEqualTo(Duration.ofSeconds(2));
                    });
                });
    }

    @Test
    void aBareTimeoutWithoutADurationAnywhereFailsTheStartupNamingItsKey() {
        withYaml("""
                bulwark:
                  timeouts:
                    pricing:
                """).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("bulwark.timeouts.pricing")
                            .hasStackTraceContaining("duration");
                });
    }

    @Test
    void aValueThatIsNotASettingsMapFailsTheStartupNamingTheKey() {
        withYaml("""
                bulwark:
                  bulkheads:
                    reports: 10
                """).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("bulwark.bulkheads.reports")
                            .hasStackTraceContaining("max-concurrency");
                });
    }
}
