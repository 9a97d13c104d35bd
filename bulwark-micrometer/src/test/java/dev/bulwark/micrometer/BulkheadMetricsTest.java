package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.testing.ManualTime;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Issue 7: a bound bulkhead's meters hold the values of a scripted scenario, in a SimpleMeterRegistry. */
class BulkheadMetricsTest {

    private final ManualTime clock = new ManualTime();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private Bulkhead bulkhead() {
        return Bulkhead.builder().name("inventory-db").maxConcurrency(1).maxQueue(1).maxWait(Duration.ofMillis(500))
                .ticker(clock).scheduler(clock).build();
    }

    @Test
    void everyOutcomeIsCountedAndEveryWaitAndExecutionTimed() {
        Bulkhead bulkhead = bulkhead();
        BulwarkMetrics.of(registry).bind(bulkhead);

        Permit holder = bulkhead.acquire();                                              // admitted, waited 0
        CompletableFuture<String> cancelled = bulkhead.callAsync(() -> CompletableFuture.completedFuture("c"));
        CompletableFuture<String> refused = bulkhead.callAsync(() -> CompletableFuture.completedFuture("r"));
        assertThat(refused).isCompletedExceptionally();                                  // rejected: queue full
        assertThat(gauge("bulwark.bulkhead.executing")).isEqualTo(1.0);
        assertThat(gauge("bulwark.bulkhead.queued")).isEqualTo(1.0);

        clock.advance(Duration.ofMillis(100));
        cancelled.cancel(false);                                                         // cancelled after 100 ms
        CompletableFuture<String> timedOut = bulkhead.callAsync(() -> CompletableFuture.completedFuture("t"));
        clock.advance(Duration.ofMillis(500));                                           // rejected: waited 500 ms
        assertThat(timedOut).isCompletedExceptionally();

        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<String> admittedLater = bulkhead.callAsync(() -> stage);
        clock.advance(Duration.ofMillis(50));
        holder.close();                                                                  // held 650 ms; next waited 50
        clock.advance(Duration.ofMillis(20));
        stage.complete("done");                                                          // held 20 ms
        assertThat(admittedLater).isCompletedWithValue("done");

        assertThat(calls("admitted")).isEqualTo(2.0);
        assertThat(calls("rejected.queue_full")).isEqualTo(1.0);
        assertThat(calls("rejected.wait_timeout")).isEqualTo(1.0);
        assertThat(calls("cancelled")).isEqualTo(1.0);
        assertThat(calls("rejected.unavailable")).isZero();

        assertTimer(wait("admitted"), 2, 50);
        assertTimer(wait("rejected.wait_timeout"), 1, 500);
        assertTimer(wait("cancelled"), 1, 100);
        assertTimer(registry.get("bulwark.bulkhead.execution").tags("name", "inventory-db").functionTimer(), 2, 670);
        assertThat(registry.get("bulwark.bulkhead.execution.max").timeGauge().value(TimeUnit.MILLISECONDS))
                .isEqualTo(650.0);
        assertThat(registry.get("bulwark.bulkhead.wait.max").tags("outcome", "rejected.wait_timeout").timeGauge()
                .value(TimeUnit.MILLISECONDS)).isEqualTo(500.0);

        assertThat(gauge("bulwark.bulkhead.executing")).isZero();
        assertThat(gauge("bulwark.bulkhead.queued")).isZero();
    }

    @Test
    void limitGaugesFollowLiveChanges() {
        Bulkhead bulkhead = bulkhead();
        BulwarkMetrics.of(registry).bind(bulkhead);
        assertThat(gauge("bulwark.bulkhead.max.concurrency")).isEqualTo(1.0);
        assertThat(gauge("bulwark.bulkhead.max.queue")).isEqualTo(1.0);

        bulkhead.changeMaxConcurrency(25);
        bulkhead.changeMaxQueue(40);

        assertThat(gauge("bulwark.bulkhead.max.concurrency")).isEqualTo(25.0);
        assertThat(gauge("bulwark.bulkhead.max.queue")).isEqualTo(40.0);
    }

    @Test
    void aSynchronousRejectionIsCountedOnceAndTheOperationsOwnFailureStillCountsAsAdmitted() {
        Bulkhead bulkhead = Bulkhead.builder().name("inventory-db").maxConcurrency(1).build();
        BulwarkMetrics.of(registry).bind(bulkhead);

        Permit holder = bulkhead.acquire();
        try {
            bulkhead.call(() -> "never");
        } catch (BulkheadRejectedException expected) {
            // counted below
        } finally {
            holder.close();
        }
        try {
            bulkhead.run(() -> {
                throw new IllegalStateException("the operation's own failure");
            });
        } catch (IllegalStateException expected) {
            // the bulkhead admitted the call; how the operation ended is not its business
        }

        assertThat(calls("admitted")).isEqualTo(2.0);
        assertThat(calls("rejected.queue_full")).isEqualTo(1.0);
        assertThat(registry.get("bulwark.bulkhead.execution").functionTimer().count()).isEqualTo(2);
    }

    @Test
    void commonTagsAreAddedToEveryMeter() {
        Bulkhead bulkhead = bulkhead();
        BulwarkMetrics.of(registry, Tags.of("region", "eu")).bind(bulkhead);

        assertThat(registry.getMeters()).isNotEmpty().allSatisfy(meter -> {
            assertThat(meter.getId().getTag("region")).isEqualTo("eu");
            assertThat(meter.getId().getTag("name")).isEqualTo("inventory-db");
        });
    }

    @Test
    void aQueuedCallCancelledThroughItsSignalIsCountedAsCancelled() {
        Bulkhead bulkhead = bulkhead();
        BulwarkMetrics.of(registry).bind(bulkhead);
        Permit holder = bulkhead.acquire();
        dev.bulwark.CancellationSignal signal = dev.bulwark.CancellationSignal.create();
        CompletableFuture<Permit> waiting = bulkhead.acquireAsync(signal);

        signal.cancel();
        holder.close();

        assertThat(waiting).isCompletedExceptionally();
        assertThat(waiting.handle((permit, failure) -> failure)).isCompletedWithValueMatching(
                failure -> failure instanceof CancellationException);
        assertThat(calls("cancelled")).isEqualTo(1.0);
        assertThat(calls("admitted")).isEqualTo(1.0);
    }

    private double gauge(String name) {
        return registry.get(name).tags("name", "inventory-db").gauge().value();
    }

    private double calls(String outcome) {
        return registry.get("bulwark.bulkhead.calls").tags("name", "inventory-db", "outcome", outcome).functionCounter()
                .count();
    }

    private FunctionTimer wait(String outcome) {
        return registry.get("bulwark.bulkhead.wait").tags("name", "inventory-db", "outcome", outcome)
                .functionTimer();
    }

    private static void assertTimer(FunctionTimer timer, long count, double totalMillis) {
        assertThat(timer.count()).as("count of %s", timer.getId()).isEqualTo((double) count);
        assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).as("total of %s", timer.getId()).isEqualTo(totalMillis);
    }
}
