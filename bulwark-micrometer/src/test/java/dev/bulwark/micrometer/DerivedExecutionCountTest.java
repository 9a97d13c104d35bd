package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.CountingMode;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.instrument.step.StepFunctionTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The execution timer's count is derived (an untimed release is not reported to the meters at all): it counts the
 * calls admitted since binding that have released their slot, never one still running, never goes down, and stays
 * exact on a step registry, whose counters only know their last step.
 */
class DerivedExecutionCountTest {

    private static FunctionTimer execution(MeterRegistry registry) {
        return registry.get("bulwark.bulkhead.execution").functionTimer();
    }

    @Test
    void countsFinishedExecutionsOnlyAndCallsRunningAtBindingNotUntilTheyEnd() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(4).build();
        Permit runningBeforeBinding = bulkhead.acquire();
        BulwarkMetrics.of(registry).bind(bulkhead);

        List<Permit> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(bulkhead.acquire());
        }
        assertThat(execution(registry).count()).as("three admitted, none ended").isZero();
        held.remove(0).close();
        // 3 admitted since binding, 3 still holding (2 of them, plus the one from before): too low for a moment.
        assertThat(execution(registry).count()).isZero();
        runningBeforeBinding.close();
        assertThat(execution(registry).count()).as("the call admitted before binding is not counted").isEqualTo(1);
        held.forEach(Permit::close);
        assertThat(execution(registry).count()).isEqualTo(3);
        for (int i = 0; i < 1_000; i++) {
            bulkhead.run(() -> { });
        }
        assertThat(execution(registry).count()).isEqualTo(1_003);
        assertThat(registry.get("bulwark.bulkhead.calls").tags("outcome", "admitted").functionCounter().count())
                .isEqualTo(1_003);
    }

    @Test
    void aStepRegistryStillGetsCumulativeCountsForItsFunctionTimers() {
        MockableClock clock = new MockableClock();
        SimpleMeterRegistry registry = new SimpleMeterRegistry(new SimpleConfig() {
            @Override
            public String get(String key) {
                return null;
            }

            @Override
            public CountingMode mode() {
                return CountingMode.STEP;
            }

            @Override
            public Duration step() {
                return Duration.ofMinutes(1);
            }
        }, clock);
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(4).build();
        BulwarkMetrics.of(registry).bind(bulkhead);

        for (int i = 0; i < 10; i++) {
            bulkhead.run(() -> { });
        }
        clock.add(Duration.ofMinutes(1));
        FunctionTimer timer = execution(registry);
        assertThat(timer).isInstanceOf(StepFunctionTimer.class);
        assertThat(timer.count()).as("10 executions in the step that ended").isEqualTo(10);
        FunctionTimer waits = registry.get("bulwark.bulkhead.wait").tags("outcome", "admitted").functionTimer();
        assertThat(waits.count()).isEqualTo(10);
        for (int i = 0; i < 5; i++) {
            bulkhead.run(() -> { });
        }
        clock.add(Duration.ofMinutes(1));
        assertThat(timer.count()).as("5 in the next step").isEqualTo(5);
        assertThat(waits.count()).as("the wait timer's count follows the admissions, step by step").isEqualTo(5);
    }

    /** A Micrometer clock the test moves. */
    private static final class MockableClock implements io.micrometer.core.instrument.Clock {
        private long nanos = TimeUnit.HOURS.toNanos(1);

        void add(Duration duration) {
            nanos += duration.toNanos();
        }

        @Override
        public long wallTime() {
            return TimeUnit.NANOSECONDS.toMillis(nanos);
        }

        @Override
        public long monotonicTime() {
            return nanos;
        }
    }
}
