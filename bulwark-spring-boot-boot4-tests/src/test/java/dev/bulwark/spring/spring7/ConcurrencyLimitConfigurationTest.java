package dev.bulwark.spring.spring7;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Bulkheads;
import dev.bulwark.spring.BulwarkAutoConfiguration;
import dev.bulwark.spring.BulwarkMetricsAutoConfiguration;
import dev.bulwark.spring.BulwarkSpringAnnotationsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.InvocationRejectedException;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.ConcurrencyLimitBeanPostProcessor;
import org.springframework.resilience.annotation.EnableResilientMethods;

/**
 * Bulwark serving {@code @ConcurrencyLimit} in plain application contexts: the settings it refuses (each fails the
 * startup with a message naming the key or the method, where Spring would fail the first call or has no such
 * setting), a waiter interrupted as Spring's is, the drain at shutdown, and the metrics.
 */
class ConcurrencyLimitConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                    BulwarkSpringAnnotationsAutoConfiguration.class))
            .withPropertyValues("bulwark.spring-annotations.enabled=true");

    private final ApplicationContextRunner springServes = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class,
                    BulwarkSpringAnnotationsAutoConfiguration.class));

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

    @Test
    void aWaiterInterruptedSeesWhatSpringsWaiterSees() throws Exception {
        List<String> seen = new ArrayList<>();
        for (ApplicationContextRunner served : List.of(springServes, runner)) {
            served.withUserConfiguration(Held.Config.class, EnableResilient.class).run(context -> {
                Held held = context.getBean(Held.class);
                Thread inside = new Thread(() -> held.call(true));
                inside.start();
                held.awaitEntered();
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                AtomicBoolean interruptStatus = new AtomicBoolean();
                Thread waiter = new Thread(() -> {
                    try {
                        held.call(false);
                    } catch (Throwable refused) {
                        thrown.set(refused);
                        interruptStatus.set(Thread.currentThread().isInterrupted());
                    }
                });
                waiter.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.WAITING);
                waiter.interrupt();
                waiter.join(10_000);
                held.release();
                inside.join(10_000);
                seen.add(thrown.get().getClass().getName() + ": " + thrown.get().getMessage() + " interrupted="
                        + interruptStatus.get());
            });
        }
        assertThat(seen).containsExactly("org.springframework.resilience.InvocationRejectedException: Thread was "
                + "interrupted while waiting for access but concurrency limit still does not allow for entering "
                + Held.class.getName() + ".call interrupted=true", seen.get(0));
    }

    @Test
    void theDrainAtShutdownRefusesTheWaitersWithSpringsException() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Held> bean = new AtomicReference<>();
        Thread inside = new Thread(() -> bean.get().call(true));
        runner.withUserConfiguration(Held.Config.class).withPropertyValues("bulwark.drain-timeout=0s")
                .run(context -> {
                    bean.set(context.getBean(Held.class));
                    inside.start();
                    bean.get().awaitEntered();
                    Thread waiter = new Thread(() -> {
                        try {
                            bean.get().call(false);
                        } catch (Throwable refused) {
                            thrown.set(refused);
                        }
                    });
                    waiter.start();
                    dev.bulwark.Bulkhead bulkhead = context.getBean(Bulkheads.class).find("held.call").orElseThrow();
                    await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.queuedCount() == 1);
                    context.close(); // drains: the queue is refused at once (drain-timeout 0s)
                    waiter.join(10_000);
                });
        bean.get().release();
        inside.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InvocationRejectedException.class).hasMessage("Concurrency limit "
                + "reached: 1 (CLOSED) - not allowed to enter " + Held.class.getName() + ".call")
                .cause().isInstanceOf(BulkheadRejectedException.class);
    }

    @Test
    void aSingletonsBulkheadHasMetrics() {
        runner.withConfiguration(AutoConfigurations.of(BulwarkMetricsAutoConfiguration.class))
                .withUserConfiguration(Blocking.Config.class).withBean(SimpleMeterRegistry.class)
                .run(context -> {
                    context.getBean(Blocking.class).call();
                    assertThat(context.getBean(MeterRegistry.class).get("bulwark.bulkhead.max.concurrency")
                            .tag("name", "blocking.call").gauge().value()).isEqualTo(2.0);
                });
    }

    /** A method whose first caller stays inside until released (the test reaches the latches through the proxy). */
    public static class Held {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);

        public void awaitEntered() throws InterruptedException {
            entered.await();
        }

        public void release() {
            release.countDown();
        }

        @ConcurrencyLimit(1)
        public void call(boolean hold) {
            if (hold) {
                entered.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {
            @Bean
            Held held() {
                return new Held();
            }
        }
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
