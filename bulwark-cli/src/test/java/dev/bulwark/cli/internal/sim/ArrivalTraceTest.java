package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A recorded trace is replayed as it is: the simulator makes exactly its arrivals, at their times and in their
 * lanes, with the lanes' priorities, where a schedule alone draws another Poisson sample each seed.
 */
class ArrivalTraceTest {

    private static final LoadSchedule TWO_LANES = new LoadSchedule(List.of(
            new LoadSchedule.Lane(Priority.CRITICAL, List.of(new LoadSchedule.Phase(10, 10, 1_000_000_000L))),
            new LoadSchedule.Lane(Priority.SHEDDABLE, List.of(new LoadSchedule.Phase(50, 50, 1_000_000_000L)))));

    private static List<long[]> replay(ArrivalTrace trace, long seed) {
        SimulationSettings settings = SimulationSettings.builder().duration(TWO_LANES.length()).seed(seed)
                .arrivals(new ArrivalModel.OpenLoop(TWO_LANES, trace))
                .serviceTime(new Distribution.Fixed(Duration.ofMillis(1))).downstreamCapacity(100).bulkhead(null)
                .mode(ExecutionMode.VIRTUAL_TIME).build();
        List<long[]> seen = new ArrayList<>();
        new Simulation(settings).run(ProgressListener.none(),
                (lane, arrival, outcome, latency) -> seen.add(new long[] {arrival, lane}));
        seen.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        return seen;
    }

    @Test
    void theSimulatorMakesExactlyTheTracesArrivalsInTheirLanesWhateverTheSeed() {
        ArrivalTrace trace = ArrivalTrace.ofLanes(new long[] {300_000_000L, 5_000_000L},
                new long[] {5_000_000L, 7_500_000L, 999_000_000L});

        for (long seed : new long[] {1, 2}) {
            assertThat(replay(trace, seed)).containsExactly(new long[] {5_000_000L, 0}, new long[] {5_000_000L, 1},
                    new long[] {7_500_000L, 1}, new long[] {300_000_000L, 0}, new long[] {999_000_000L, 1});
        }
    }

    @Test
    void theRateIsTheTracesOverTheSchedulesLengthAndArrivalsAfterTheRunAreLeftOut() {
        ArrivalTrace trace = ArrivalTrace.ofLanes(new long[] {1_000L, 2_000L}, new long[] {3_000L, 2_000_000_000L});

        assertThat(new ArrivalModel.OpenLoop(TWO_LANES, trace).rate().perSecond()).isEqualTo(4.0);
        assertThat(new ArrivalModel.OpenLoop(TWO_LANES, trace).describe()).startsWith("4 recorded arrivals");
        assertThat(replay(trace, 1)).hasSize(3);
    }

    @Test
    void aTraceOutOfOrderOrInALaneTheScheduleLacksIsRefused() {
        assertThatThrownBy(() -> new ArrivalTrace(new long[] {2, 1}, new int[] {0, 0}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offsetsNanos must be in time order");
        assertThatThrownBy(() -> new ArrivalTrace(new long[] {1}, new int[] {0, 1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lanes must have one entry");
        assertThatThrownBy(() -> new ArrivalModel.OpenLoop(TWO_LANES,
                ArrivalTrace.ofLanes(new long[] {1}, new long[] {2}, new long[] {3})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lane 2");
        assertThatThrownBy(() -> new ArrivalModel.OpenLoop(new Rate(1), null,
                new ArrivalTrace(new long[] {1}, new int[] {0})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trace needs a schedule");
    }
}
