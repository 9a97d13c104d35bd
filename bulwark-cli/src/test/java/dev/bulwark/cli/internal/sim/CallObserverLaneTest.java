package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.Priority;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * A run's observer is told each call's lane, so that a report can split two lanes that the bulkhead cannot tell
 * apart (no priorities, or the same one).
 */
class CallObserverLaneTest {

    private static int[] callsPerLane(Priority first, Priority second) {
        LoadSchedule schedule = new LoadSchedule(List.of(
                new LoadSchedule.Lane(first, List.of(new LoadSchedule.Phase(100, 100, 2_000_000_000L))),
                new LoadSchedule.Lane(second, List.of(new LoadSchedule.Phase(300, 300, 2_000_000_000L)))));
        SimulationSettings settings = SimulationSettings.builder().duration(schedule.length()).seed(3)
                .arrivals(new ArrivalModel.OpenLoop(schedule)).serviceTime(new Distribution.Fixed(Duration.ofMillis(1)))
                .downstreamCapacity(100).bulkhead(null).mode(ExecutionMode.VIRTUAL_TIME).build();
        AtomicIntegerArray counts = new AtomicIntegerArray(2);
        SimulationResult result = new Simulation(settings).run(ProgressListener.none(),
                (lane, arrival, outcome, latency) -> counts.incrementAndGet(lane));
        assertThat(counts.get(0) + counts.get(1)).isEqualTo(result.counts().arrivals());
        return new int[] {counts.get(0), counts.get(1)};
    }

    @Test
    void lanesWithoutPrioritiesAreToldApartByTheirIndex() {
        int[] calls = callsPerLane(null, null);

        // 200 and 600 expected over 2 s; Poisson counts within five standard deviations.
        assertThat(calls[0]).isBetween(200 - 75, 200 + 75);
        assertThat(calls[1]).isBetween(600 - 125, 600 + 125);
    }

    @Test
    void equalLanesAreStillTwoLanes() {
        // Equal records (no priority, the same phase): told apart by position, not by equality.
        LoadSchedule.Phase phase = new LoadSchedule.Phase(200, 200, 2_000_000_000L);
        LoadSchedule twins = new LoadSchedule(List.of(new LoadSchedule.Lane(null, List.of(phase)),
                new LoadSchedule.Lane(null, List.of(phase))));
        SimulationSettings settings = SimulationSettings.builder().duration(twins.length()).seed(3)
                .arrivals(new ArrivalModel.OpenLoop(twins)).serviceTime(new Distribution.Fixed(Duration.ofMillis(1)))
                .downstreamCapacity(100).bulkhead(null).mode(ExecutionMode.VIRTUAL_TIME).build();
        AtomicIntegerArray counts = new AtomicIntegerArray(2);
        new Simulation(settings).run(ProgressListener.none(),
                (lane, arrival, outcome, latency) -> counts.incrementAndGet(lane));

        assertThat(counts.get(0)).isBetween(400 - 100, 400 + 100);
        assertThat(counts.get(1)).isBetween(400 - 100, 400 + 100);
    }

    @Test
    void lanesWithPrioritiesAreToldApartToo() {
        int[] calls = callsPerLane(Priority.CRITICAL, Priority.SHEDDABLE);

        assertThat(calls[0]).isBetween(200 - 75, 200 + 75);
        assertThat(calls[1]).isBetween(600 - 125, 600 + 125);
    }

    @Test
    void lanesWithAndWithoutAPriorityDoNotMix() {
        LoadSchedule.Phase phase = new LoadSchedule.Phase(200, 200, 2_000_000_000L);
        assertThatThrownBy(() -> new LoadSchedule(List.of(new LoadSchedule.Lane(null, List.of(phase)),
                new LoadSchedule.Lane(Priority.CRITICAL, List.of(phase)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("every lane needs a priority");
    }

    @Test
    void arrivalsWithoutAScheduleAreAllLaneZero() {
        SimulationSettings settings = SimulationSettings.builder().duration(Duration.ofSeconds(1)).seed(3)
                .arrivals(new ArrivalModel.OpenLoop(new Rate(200)))
                .serviceTime(new Distribution.Fixed(Duration.ofMillis(1))).downstreamCapacity(100).bulkhead(null)
                .mode(ExecutionMode.VIRTUAL_TIME).build();
        AtomicIntegerArray counts = new AtomicIntegerArray(2);
        new Simulation(settings).run(ProgressListener.none(),
                (lane, arrival, outcome, latency) -> counts.incrementAndGet(lane));

        assertThat(counts.get(0)).isPositive();
        assertThat(counts.get(1)).isZero();
    }
}
