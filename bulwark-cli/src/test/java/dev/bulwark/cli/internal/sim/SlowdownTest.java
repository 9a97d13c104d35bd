package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A slowdown slows every call in flight by its speed for its period, and only then: checked on calls that never
 * share the downstream beyond its capacity (a fixed service time, a light load, no bulkhead), whose latency is their
 * work divided by the speed they met. To within {@link #SLACK}, the model's finish tolerance: a call with less than
 * 20 µs of work left ends with the completion before it (with or without a slowdown).
 */
class SlowdownTest {

    private static final Duration WORK = Duration.ofMillis(10);
    private static final long SLACK = 20_000;
    private static final Slowdown HALF_SPEED = new Slowdown(Duration.ofSeconds(1), Duration.ofSeconds(2), 0.5);

    private record Call(long arrivalNanos, long latencyNanos) {
    }

    private static List<Call> run(List<Slowdown> slowdowns) {
        SimulationSettings settings = SimulationSettings.builder().duration(Duration.ofSeconds(3)).seed(5)
                .arrivals(new ArrivalModel.OpenLoop(new Rate(1000))).serviceTime(new Distribution.Fixed(WORK))
                .downstreamCapacity(1000).bulkhead(null).mode(ExecutionMode.VIRTUAL_TIME).slowdowns(slowdowns)
                .build();
        List<Call> calls = new ArrayList<>();
        new Simulation(settings).run(ProgressListener.none(),
                (lane, arrival, outcome, latency) -> calls.add(new Call(arrival, latency)));
        return calls;
    }

    @Test
    void callsWithinTheSlowdownTakeTheirWorkOverItsSpeedAndOthersTheirWork() {
        List<Call> calls = run(List.of(HALF_SPEED));

        long from = HALF_SPEED.from().toNanos();
        long until = HALF_SPEED.until().toNanos();
        long work = WORK.toNanos();
        List<Call> before = calls.stream().filter(c -> c.arrivalNanos() + work <= from).toList();
        List<Call> within = calls.stream()
                .filter(c -> c.arrivalNanos() >= from && c.arrivalNanos() + 2 * work <= until).toList();
        List<Call> after = calls.stream().filter(c -> c.arrivalNanos() >= until).toList();
        assertThat(before).hasSizeGreaterThan(100)
                .allSatisfy(c -> assertThat(c.latencyNanos()).isCloseTo(work, within(SLACK)));
        assertThat(within).hasSizeGreaterThan(100)
                .allSatisfy(c -> assertThat(c.latencyNanos()).isCloseTo(2 * work, within(SLACK)));
        assertThat(after).hasSizeGreaterThan(100)
                .allSatisfy(c -> assertThat(c.latencyNanos()).isCloseTo(work, within(SLACK)));
        // A call that spans the start keeps the work it did at full speed (d, up to the start); the rest takes twice
        // as long: 2 x work - d in all.
        List<Call> spanning = calls.stream()
                .filter(c -> c.arrivalNanos() < from && c.arrivalNanos() + work > from).toList();
        assertThat(spanning).isNotEmpty().allSatisfy(c -> assertThat(c.latencyNanos())
                .isCloseTo(2 * work - (from - c.arrivalNanos()), within(SLACK)));
    }

    @Test
    void withoutSlowdownsEveryCallTakesItsWork() {
        assertThat(run(List.of())).hasSizeGreaterThan(400)
                .allSatisfy(c -> assertThat(c.latencyNanos()).isCloseTo(WORK.toNanos(), within(SLACK)));
    }

    @Test
    void aPauseHoldsEveryCallInFlightUntilItEnds() {
        Slowdown pause = new Slowdown(Duration.ofSeconds(1), Duration.ofMillis(1100), 0);
        List<Call> calls = run(List.of(pause));

        long from = pause.from().toNanos();
        long until = pause.until().toNanos();
        // A call due during the pause does no work until it ends, then its whole work.
        assertThat(calls.stream().filter(c -> c.arrivalNanos() >= from && c.arrivalNanos() < until).toList())
                .isNotEmpty().allSatisfy(c -> assertThat(c.arrivalNanos() + c.latencyNanos())
                        .isCloseTo(until + WORK.toNanos(), within(SLACK)));
    }

    @Test
    void badSlowdownsAreRefusedNamingWhatIsWrong() {
        assertThatThrownBy(() -> new Slowdown(Duration.ofSeconds(2), Duration.ofSeconds(1), 0.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("until");
        assertThatThrownBy(() -> new Slowdown(Duration.ofSeconds(-1), Duration.ofSeconds(1), 0.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from");
        assertThatThrownBy(() -> new Slowdown(Duration.ZERO, Duration.ofSeconds(1), 1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("speed");
        Slowdown later = new Slowdown(Duration.ofMillis(1500), Duration.ofSeconds(3), 0.5);
        assertThatThrownBy(() -> SimulationSettings.builder().slowdowns(List.of(HALF_SPEED, later)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slowdowns");
        assertThatThrownBy(() -> SimulationSettings.builder().mode(ExecutionMode.ASYNC)
                .slowdowns(List.of(HALF_SPEED)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("VIRTUAL_TIME");
    }
}
