package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Bulkheads;
import dev.bulwark.Permit;
import dev.bulwark.micrometer.BulwarkMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * Issue 14: the starter binds metrics whenever Micrometer and a registry are there, says at startup why it does not
 * otherwise, and counts the fallback methods of the annotations in {@code bulwark.fallback.used} (real contexts, a
 * real Micrometer registry, the JDK's own logging).
 */
class MetricsWiringTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(BulwarkAutoConfiguration.class, BulwarkMetricsAutoConfiguration.class));

    /** Everything the starter logs to {@code dev.bulwark.spring} (System.Logger's default backend is JUL). */
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger("dev.bulwark.spring");
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLog() {
        logger.addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        logger.removeHandler(capture);
    }

    private List<String> infoLines() {
        return logged.stream().filter(record -> record.getLevel() == Level.INFO).map(LogRecord::getMessage).toList();
    }

    @Test
    void withoutAMeterRegistryBeanOneStartupLineSaysMetricsAreOffAndWhy() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(BulwarkMetrics.class);
            assertThat(context.getBean(BulwarkMetricsAutoConfiguration.MetricsOff.class).reason())
                    .contains("no MeterRegistry bean");
            assertThat(infoLines()).singleElement().asString().startsWith("Bulwark metrics are off: ")
                    .contains("no MeterRegistry bean", "spring-boot-starter-actuator");
        });
    }

    @Test
    void withoutMicrometerOnTheClassPathTheLineSaysSo() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(BulwarkMetricsAutoConfiguration.MetricsOff.class).reason())
                    .contains("Micrometer is not on the class path");
            assertThat(infoLines()).singleElement().asString().contains("Micrometer is not on the class path");
        });
    }

    @Test
    void metricsSwitchedOffOnPurposeOrBoundLogNothing() {
        runner.withPropertyValues("bulwark.metrics.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(BulwarkMetricsAutoConfiguration.MetricsOff.class);
        });
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(BulwarkMetrics.class)
                    .doesNotHaveBean(BulwarkMetricsAutoConfiguration.MetricsOff.class);
        });
        assertThat(infoLines()).isEmpty();
    }

    @Test
    void everyShapeOfAnnotatedMethodCountsItsFallbacksUnderThePolicyName() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withUserConfiguration(Guarded.class)
                .withPropertyValues("bulwark.bulkheads.stock.max-concurrency=1").run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    GuardedService service = context.getBean(GuardedService.class);
                    dev.bulwark.Bulkhead stock = context.getBean(Bulkheads.class).find("stock").orElseThrow();

                    assertThat(service.plain()).isEqualTo("fresh");
                    assertThat(registry.find("bulwark.fallback.used").counters()).isEmpty();

                    try (Permit held = stock.acquire()) {
                        assertThat(service.plain()).isEqualTo("cached");
                        assertThat(service.async().get(10, TimeUnit.SECONDS)).isEqualTo("cached async");
                        assertThat(service.mono().block()).isEqualTo("cached mono");
                    }

                    assertThat(registry.get("bulwark.fallback.used").tags("name", "stock", "exception",
                            "BulkheadRejectedException").counter().count()).isEqualTo(3.0);
                    assertThat(service.plain()).isEqualTo("fresh");
                    assertThat(registry.get("bulwark.fallback.used").counter().count()).isEqualTo(3.0);
                });
    }

    @Test
    void theFallbackIsCountedUnderTheAnnotationThatNamesIt() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withUserConfiguration(Guarded.class)
                .withPropertyValues("bulwark.bulkheads.stock.max-concurrency=1",
                        "bulwark.defaults.retry.max-retries=0").run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    GuardedService service = context.getBean(GuardedService.class);

                    assertThat(service.failing()).isEqualTo("after failure");

                    assertThat(registry.get("bulwark.fallback.used").tags("name", "orders", "exception",
                            "IllegalStateException").counter().count()).isEqualTo(1.0);
                    assertThat(registry.find("bulwark.fallback.used").tags("name", "stock").counters()).isEmpty();
                });
    }

    @Test
    void aThrowingFallbackListenerIsLoggedOnceAndChangesNothing() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withUserConfiguration(Guarded.class)
                .withBean(FallbackMethodListener.class, () -> (name, method, failure) -> {
                    throw new IllegalStateException("listener broken");
                })
                .withPropertyValues("bulwark.bulkheads.stock.max-concurrency=1").run(context -> {
                    GuardedService service = context.getBean(GuardedService.class);
                    dev.bulwark.Bulkhead stock = context.getBean(Bulkheads.class).find("stock").orElseThrow();
                    try (Permit held = stock.acquire()) {
                        assertThat(service.plain()).isEqualTo("cached");
                        assertThat(service.plain()).isEqualTo("cached");
                    }
                    assertThat(context.getBean(MeterRegistry.class).get("bulwark.fallback.used").counter().count())
                            .isEqualTo(2.0);
                    assertThat(logged).filteredOn(record -> record.getLevel() == Level.WARNING).singleElement()
                            .satisfies(record -> assertThat(record.getThrown()).hasMessage("listener broken"));
                });
    }

    @Test
    void aFallbackListenerThrowingAnErrorChangesNothingEither() {
        assertAThrowingListenerChangesNothing((name, method, failure) -> {
            throw new AssertionError("listener assertion");
        }, "listener assertion");
    }

    @Test
    void aFallbackListenerThrowingACheckedExceptionChangesNothingEither() {
        assertAThrowingListenerChangesNothing((name, method, failure) -> sneakyThrow(new IOException("sneaky")),
                "sneaky");
    }

    /** A plain and an asynchronous method still get their fallback, and the listener's failure is logged. */
    private void assertAThrowingListenerChangesNothing(FallbackMethodListener listener, String message) {
        runner.withUserConfiguration(Guarded.class).withBean(FallbackMethodListener.class, () -> listener)
                .withPropertyValues("bulwark.bulkheads.stock.max-concurrency=1").run(context -> {
                    GuardedService service = context.getBean(GuardedService.class);
                    dev.bulwark.Bulkhead stock = context.getBean(Bulkheads.class).find("stock").orElseThrow();
                    try (Permit held = stock.acquire()) {
                        assertThat(service.plain()).isEqualTo("cached");
                        assertThat(service.async().get(10, TimeUnit.SECONDS)).isEqualTo("cached async");
                    }
                    assertThat(logged).filteredOn(record -> record.getLevel() == Level.WARNING).isNotEmpty()
                            .allSatisfy(record -> assertThat(record.getThrown()).hasMessage(message));
                });
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable failure) throws T {
        throw (T) failure;
    }

    @Configuration(proxyBeanMethods = false)
    static class Guarded {
        @Bean
        GuardedService guardedService() {
            return new GuardedService();
        }
    }

    /** One method of each shape, each with a fallback method. */
    public static class GuardedService {

        @dev.bulwark.spring.Bulkhead(value = "stock", fallbackMethod = "cachedPlain")
        public String plain() {
            return "fresh";
        }

        String cachedPlain(BulkheadRejectedException refused) {
            return "cached";
        }

        @dev.bulwark.spring.Bulkhead(value = "stock", fallbackMethod = "cachedAsync")
        public CompletableFuture<String> async() {
            return CompletableFuture.completedFuture("fresh async");
        }

        CompletableFuture<String> cachedAsync(BulkheadRejectedException refused) {
            return CompletableFuture.completedFuture("cached async");
        }

        @dev.bulwark.spring.Bulkhead(value = "stock", fallbackMethod = "cachedMono")
        public Mono<String> mono() {
            return Mono.just("fresh mono");
        }

        Mono<String> cachedMono(BulkheadRejectedException refused) {
            return Mono.just("cached mono");
        }

        @dev.bulwark.spring.Retry(value = "orders", fallbackMethod = "recovered")
        @dev.bulwark.spring.Bulkhead("stock")
        public String failing() {
            throw new IllegalStateException("always");
        }

        String recovered(Exception failure) {
            return "after failure";
        }
    }
}
