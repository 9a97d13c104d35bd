package dev.bulwark.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Bulkheads;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.spring.internal.DrainOnShutdown;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;

/** Issue 16 item 4: the context's shutdown drains every declared bulkhead before the web server stops. */
class DrainOnShutdownTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BulwarkAutoConfiguration.class))
            .withPropertyValues("bulwark.bulkheads.db.max-concurrency=1", "bulwark.bulkheads.db.max-queue=1");

    @Test
    void closingTheContextRefusesTheQueueWithClosedAndWaitsForTheRunningCall() {
        runner.run(context -> {
            dev.bulwark.Bulkhead db = context.getBean(Bulkheads.class).find("db").orElseThrow();
            Permit running = db.acquire();
            CompletableFuture<Permit> queued = db.acquireAsync();
            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);

            assertThat(queued).failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
                    .havingCause().isInstanceOfSatisfying(BulkheadRejectedException.class, refused ->
                            assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.CLOSED));
            assertThat(db.isClosed()).isTrue();
            // The drain waits for the permit that is still held: the context cannot have finished closing.
            assertThat(closing).isNotDone();
            assertThat(db.executingCount()).isEqualTo(1);

            running.close();
            closing.get(10, TimeUnit.SECONDS);
            assertThat(db.executingCount()).isZero();
        });
    }

    /** Audit s30 finding 10: more nanoseconds than a long holds used to throw ArithmeticException at shutdown. */
    @Test
    void aDrainTimeoutTooLongForNanosecondsWaitsForTheRunningCallInsteadOfFailing() {
        runner.withPropertyValues("bulwark.drain-timeout=1000000d").run(context -> {
            DrainOnShutdown drain = context.getBean(DrainOnShutdown.class);
            dev.bulwark.Bulkhead db = context.getBean(Bulkheads.class).find("db").orElseThrow();
            Permit running = db.acquire();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(drain::stop);

            await().atMost(Duration.ofSeconds(10)).until(db::isClosed);
            assertThat(stopping).as("the drain waits for the call that still runs").isNotDone();
            running.close();

            assertThat(stopping).succeedsWithin(Duration.ofSeconds(10));
            assertThat(db.executingCount()).isZero();
        });
    }

    @Test
    void theDrainStopsBeforeTheWebServersGracefulShutdownAndHonoursItsTimeout() {
        runner.withPropertyValues("bulwark.drain-timeout=0s").run(context -> {
            DrainOnShutdown drain = context.getBean(DrainOnShutdown.class);
            // Web servers shut down gracefully at DEFAULT_PHASE - 1024 and stop at DEFAULT_PHASE - 2048; a higher
            // phase stops earlier.
            assertThat(drain.getPhase()).isGreaterThan(SmartLifecycle.DEFAULT_PHASE - 1024);
            dev.bulwark.Bulkhead db = context.getBean(Bulkheads.class).find("db").orElseThrow();
            Permit running = db.acquire();
            context.close(); // a zero timeout does not wait for the running call
            assertThat(db.isClosed()).isTrue();
            assertThat(db.executingCount()).isEqualTo(1);
            running.close();
            assertThat(db.executingCount()).isZero();
        });
    }
}
