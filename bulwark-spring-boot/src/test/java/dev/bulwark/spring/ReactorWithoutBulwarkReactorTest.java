package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.reactor.BulwarkOperators;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * Audit s30 finding 5: with Reactor on the class path but not bulwark-reactor, a {@code Mono} or {@code Flux} method
 * would be guarded only while the publisher is made, so its bean's creation fails instead, naming the method.
 */
class ReactorWithoutBulwarkReactorTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class))
            .withPropertyValues("bulwark.bulkheads.m.max-concurrency=1", "bulwark.bulkheads.m.max-queue=0");

    @Test
    void aMonoOrFluxMethodFailsTheStartupWithoutBulwarkReactorNamingTheMethodAndTheDependency() {
        runner.withClassLoader(new FilteredClassLoader(BulwarkOperators.class))
                .withUserConfiguration(ReactiveConfiguration.class).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("@Bulkhead on")
                            .hasStackTraceContaining("ReactiveService.held(reactor.core.publisher.Mono)")
                            .hasStackTraceContaining("returns a Mono but bulwark-reactor is not on the class path")
                            .hasStackTraceContaining("dev.bulwark:bulwark-reactor");
                });
        runner.withClassLoader(new FilteredClassLoader(BulwarkOperators.class))
                .withUserConfiguration(FluxConfiguration.class).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("@Retry on")
                            .hasStackTraceContaining("FluxService.values()")
                            .hasStackTraceContaining("returns a Flux but bulwark-reactor is not on the class path");
                });
        // The same beans with bulwark-reactor: they start, and the Mono is guarded per subscription.
        runner.withUserConfiguration(ReactiveConfiguration.class, FluxConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            ReactiveService service = context.getBean(ReactiveService.class);
            Sinks.One<String> release = Sinks.one();
            StepVerifier first = StepVerifier.create(service.held(release.asMono())).expectNext("first")
                    .expectComplete().verifyLater();
            // The first subscription holds the only slot until released: a second one is refused.
            StepVerifier.create(service.held(Mono.just("second"))).expectError(BulkheadRejectedException.class)
                    .verify(WAIT);
            release.tryEmitValue("first");
            first.verify(WAIT);
            StepVerifier.create(context.getBean(FluxService.class).values()).expectNext("a").verifyComplete();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class ReactiveConfiguration {
        @Bean
        ReactiveService reactiveService() {
            return new ReactiveService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FluxConfiguration {
        @Bean
        FluxService fluxService() {
            return new FluxService();
        }
    }

    /** A bulkheaded Mono method, returning what it is given. */
    public static class ReactiveService {
        @dev.bulwark.spring.Bulkhead("m")
        public Mono<String> held(Mono<String> value) {
            return value;
        }
    }

    /** A retried Flux method. */
    public static class FluxService {
        @dev.bulwark.spring.Retry("r")
        public Flux<String> values() {
            return Flux.just("a");
        }
    }
}
