package dev.bulwark.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FirstUseMeter;
import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 for the OpenTelemetry binding: in a fresh JVM (see {@link TelemetryFirstCalls}), the first call through
 * a bound bulkhead does not pay the OpenTelemetry context's first use on the caller's thread, and a collection never
 * makes a caller wait.
 *
 * <p>Before the fix the first admitted call's release recorded the first histogram value of the JVM, which looked
 * up the context storage (a {@code ServiceLoader} scan of the class path) and the trace classes of the exemplar
 * filter: 69 classes loaded, 26 ms of CPU, 36 to 50 ms on a quiet machine and up to 290 ms on a loaded one, against
 * 0.1 to 0.3 ms warm. The binder now does that when it is made; the first call loads 18 classes (the SDK's first
 * histogram series, which only a record can set up) and takes 8 to 10 ms of CPU.
 */
class TelemetryFirstCallsTest {

    @Test
    void theFirstCallThroughABoundBulkheadLeavesTheContextsFirstUseToTheBinder() {
        FreshJvm.Result run = FreshJvm.run(TelemetryFirstCalls.class, Duration.ofSeconds(60), List.of());
        String output = run.output();
        assertThat(run.exitCode()).as(output).isZero();
        Map<String, Long> figures = FirstUseMeter.figures(output);
        assertThat(figures).as(output).doesNotContainKeys("cold.unexpected", "warm.unexpected");
        assertThat(figures.get("cold.admitted.classes")).as(output).isLessThanOrEqualTo(40);
        assertThat(figures.get("cold.refusal.classes")).as(output).isLessThanOrEqualTo(5);
        assertThat(figures.get("cold.queued.classes")).as(output).isLessThanOrEqualTo(5);
        // A collection reads without locks a caller needs: the caller never parked or blocked meanwhile.
        assertThat(figures.get("cold.collect.callerWaits")).as(output).isZero();
        assertThat(figures.get("warm.collect.callerWaits")).as(output).isZero();
    }
}
