package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Bulkhead;
import dev.bulwark.testing.ManualTime;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 40: the bulkhead's maxima and percentiles cover a recent window rotating on the registry's clock, like a
 * Micrometer timer's (2 minutes in 3 buffers by default), while counts and totals stay cumulative and exact.
 */
class WindowedStatisticsTest {

    private final MockClock registryClock = new MockClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, registryClock);
    private final ManualTime time = new ManualTime();

    private Bulkhead bound(BulwarkMetrics metrics) {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMillis(500)).ticker(time).scheduler(time).build();
        metrics.bind(bulkhead);
        return bulkhead;
    }

    private void callTaking(Bulkhead bulkhead, Duration duration) {
        bulkhead.run(() -> time.advance(duration));
    }

    private double millis(String name, String... tags) {
        return registry.get(name).tags(tags).timeGauge().value(TimeUnit.MILLISECONDS);
    }

    private void later(Duration duration) {
        registryClock.add(duration);
    }

    @Test
    void aSlowCallsMaxIsGoneAfterTheWindowAndPercentilesReflectOnlyTheWindow() {
        Bulkhead bulkhead = bound(BulwarkMetrics.of(registry));
        callTaking(bulkhead, Duration.ofSeconds(3)); // a slow start
        assertThat(millis("bulwark.bulkhead.execution.max")).isEqualTo(3_000.0);
        assertThat(millis("bulwark.bulkhead.execution.percentile", "phi", "0.99")).isCloseTo(3_000.0,
                within(3_000.0 * 0.016));

        later(Duration.ofMinutes(2));
        for (int i = 0; i < 100; i++) {
            callTaking(bulkhead, Duration.ofMillis(1 + i % 10));
        }

        assertThat(millis("bulwark.bulkhead.execution.max")).as("the slow call left the window").isEqualTo(10.0);
        assertThat(millis("bulwark.bulkhead.execution.percentile", "phi", "0.5")).isCloseTo(5.0, within(0.1));
        assertThat(millis("bulwark.bulkhead.execution.percentile", "phi", "0.99")).isCloseTo(10.0, within(0.2));
        assertThat(registry.get("bulwark.bulkhead.execution").functionTimer().count())
                .as("counts stay cumulative").isEqualTo(101.0);
        assertThat(registry.get("bulwark.bulkhead.execution").functionTimer().totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(3_000.0 + 10 * 55);

        later(Duration.ofMinutes(2));
        assertThat(millis("bulwark.bulkhead.execution.max")).as("an idle window").isZero();
        assertThat(millis("bulwark.bulkhead.execution.percentile", "phi", "0.99")).isZero();
    }

    @Test
    void theWaitMaxDecaysToo() {
        Bulkhead bulkhead = bound(BulwarkMetrics.of(registry));
        try (var holder = bulkhead.acquire()) {
            CompletableFuture<String> timedOut = bulkhead.callAsync(() -> CompletableFuture.completedFuture("t"));
            time.advance(Duration.ofMillis(500));
            assertThat(timedOut).isCompletedExceptionally();
        }
        assertThat(millis("bulwark.bulkhead.wait.max", "outcome", "rejected.wait_timeout")).isEqualTo(500.0);

        later(Duration.ofSeconds(119));
        assertThat(millis("bulwark.bulkhead.wait.max", "outcome", "rejected.wait_timeout")).isEqualTo(500.0);
        later(Duration.ofSeconds(1));
        assertThat(millis("bulwark.bulkhead.wait.max", "outcome", "rejected.wait_timeout")).isZero();
        assertThat(registry.get("bulwark.bulkhead.wait").tags("outcome", "rejected.wait_timeout").functionTimer()
                .totalTime(TimeUnit.MILLISECONDS)).as("the total stays").isEqualTo(500.0);
    }

    @Test
    void theWindowIsConfigurable() {
        Bulkhead bulkhead = bound(BulwarkMetrics.builder(registry).distributionStatisticExpiry(Duration.ofSeconds(10))
                .distributionStatisticBufferLength(2).build());
        callTaking(bulkhead, Duration.ofSeconds(3));
        later(Duration.ofSeconds(9));
        assertThat(millis("bulwark.bulkhead.execution.max")).isEqualTo(3_000.0);
        later(Duration.ofSeconds(1));
        assertThat(millis("bulwark.bulkhead.execution.max")).isZero();
    }

    @Test
    void badWindowsFailAtOnceNamingTheParameter() {
        BulwarkMetrics.Builder builder = BulwarkMetrics.builder(registry);
        assertThatThrownBy(() -> builder.distributionStatisticExpiry(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry");
        assertThatThrownBy(() -> builder.distributionStatisticExpiry(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("expiry");
        assertThatThrownBy(() -> builder.distributionStatisticBufferLength(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bufferLength");
    }
}
