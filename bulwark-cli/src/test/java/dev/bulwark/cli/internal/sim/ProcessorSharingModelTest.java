package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The downstream's arithmetic, driven by explicit timestamps (no clock, no threads). */
class ProcessorSharingModelTest {

    private static final long MS = 1_000_000L;

    @Test
    void withinCapacityEveryCallTakesExactlyItsWork() {
        ProcessorSharingModel<String> model = new ProcessorSharingModel<>(4, 1.0, 0);
        model.start(0, 10 * MS, "a");
        model.start(0, 20 * MS, "b");
        model.start(5 * MS, 10 * MS, "c");

        assertThat(finishAt(model, 10 * MS)).containsExactly("a");
        assertThat(finishAt(model, 15 * MS)).containsExactly("c");
        assertThat(finishAt(model, 19 * MS)).isEmpty();
        assertThat(finishAt(model, 20 * MS)).containsExactly("b");
        assertThat(model.inFlight()).isZero();
        assertThat(model.peakInFlight()).isEqualTo(3);
    }

    @Test
    void beyondCapacityCallsShareAndThrash() {
        // 8 calls on a capacity of 4 with degradation 1: each runs at (4/8) / (1 + 1) = 1/4 speed.
        ProcessorSharingModel<String> model = new ProcessorSharingModel<>(4, 1.0, 0);
        for (int i = 0; i < 8; i++) {
            model.start(0, 10 * MS, "call " + i);
        }

        assertThat(model.speed(8)).isEqualTo(0.25);
        assertThat(model.nanosUntilNextFinish()).isEqualTo(40 * MS);
        assertThat(finishAt(model, 39 * MS)).isEmpty();
        assertThat(finishAt(model, 40 * MS)).hasSize(8);
    }

    @Test
    void withoutDegradationOverloadOnlyShares() {
        ProcessorSharingModel<Integer> model = new ProcessorSharingModel<>(4, 0.0, 0);
        for (int i = 0; i < 8; i++) {
            model.start(0, 10 * MS, i);
        }

        // Throughput holds at capacity: 8 calls of 10 ms on 4 full-speed slots take 20 ms.
        assertThat(model.nanosUntilNextFinish()).isEqualTo(20 * MS);
    }

    @Test
    void aLaterArrivalSlowsDownTheCallsAlreadyInProgress() {
        ProcessorSharingModel<String> model = new ProcessorSharingModel<>(1, 0.0, 0);
        model.start(0, 10 * MS, "first");
        // Alone for 5 ms (5 ms of work done), then shared with a second call at half speed.
        model.start(5 * MS, 10 * MS, "second");

        assertThat(finishAt(model, 14 * MS)).isEmpty();
        assertThat(finishAt(model, 15 * MS)).containsExactly("first");
        // The second call got 5 ms of work while sharing, and the rest alone.
        assertThat(finishAt(model, 20 * MS)).containsExactly("second");
    }

    @Test
    void throughputFallsAsOverloadGrows() {
        ProcessorSharingModel<Void> model = new ProcessorSharingModel<>(32, 1.0, 0);
        double atCapacity = 32 * model.speed(32);
        double atTwice = 64 * model.speed(64);
        double atTenTimes = 320 * model.speed(320);

        assertThat(atCapacity).isEqualTo(32.0);
        assertThat(atTwice).isCloseTo(16.0, within(1e-9));
        assertThat(atTenTimes).isCloseTo(3.2, within(1e-9));
    }

    @Test
    void theInFlightIntegralIsTheSumOfTimesInTheDownstream() {
        ProcessorSharingModel<String> model = new ProcessorSharingModel<>(2, 1.0, 0);
        model.start(0, 10 * MS, "a");
        model.start(2 * MS, 30 * MS, "b");
        model.start(4 * MS, 6 * MS, "c");
        List<ProcessorSharingModel.Job<String>> done = new ArrayList<>();
        long sumOfResidence = 0;
        for (long now = 0; now <= 200 * MS; now += MS / 10) {
            model.finishDue(now, done);
            for (ProcessorSharingModel.Job<String> job : done) {
                sumOfResidence += now - job.startedAt();
            }
            done.clear();
        }

        assertThat(model.inFlight()).isZero();
        assertThat(model.inFlightIntegral()).isCloseTo(sumOfResidence, within(3 * MS / 10.0));
    }

    @Test
    void removeAllEndsEveryCall() {
        ProcessorSharingModel<String> model = new ProcessorSharingModel<>(2, 1.0, 0);
        model.start(0, 10 * MS, "a");
        model.start(0, 10 * MS, "b");
        List<ProcessorSharingModel.Job<String>> removed = new ArrayList<>();

        model.removeAll(MS, removed);

        assertThat(removed).extracting(ProcessorSharingModel.Job::payload).containsExactly("a", "b");
        assertThat(model.inFlight()).isZero();
        assertThat(model.nanosUntilNextFinish()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void rejectsBadParameters() {
        assertThatThrownBy(() -> new ProcessorSharingModel<>(0, 1.0, 0)).hasMessageContaining("capacity");
        assertThatThrownBy(() -> new ProcessorSharingModel<>(1, -1.0, 0)).hasMessageContaining("degradation");
        assertThatThrownBy(() -> new ProcessorSharingModel<>(1, 1.0, -0.1, 0)).hasMessageContaining("contention");
        assertThatThrownBy(() -> new ProcessorSharingModel<>(1, 1.0, Double.POSITIVE_INFINITY, 0))
                .hasMessageContaining("contention");
    }

    @Test
    void contentionMakesThroughputGrowSublinearlyBelowCapacityAsAmdahlsLawDoes() {
        ProcessorSharingModel<String> model = new ProcessorSharingModel<>(10, 1.0, 0.5, 0);

        assertThat(model.speed(1)).isEqualTo(1.0);
        assertThat(model.speed(2)).isEqualTo(1 / 1.5);
        // n calls complete n / (1 + k (n - 1)) calls' worth: more with every call, never n.
        double previous = 0;
        for (int n = 1; n <= 10; n++) {
            double throughput = n * model.speed(n);
            assertThat(throughput).as("n = %d", n).isCloseTo(n / (1 + 0.5 * (n - 1)), within(1e-12))
                    .isGreaterThan(previous);
            previous = throughput;
        }
        // Beyond capacity the contention of the capacity's calls holds, and sharing and thrashing come on top.
        ProcessorSharingModel<String> plain = new ProcessorSharingModel<>(10, 1.0, 0);
        assertThat(model.speed(20)).isCloseTo(plain.speed(20) * model.speed(10), within(1e-12));
        // Two calls of 10 ms, each at 1 / 1.5 of full speed: both end after 15 ms.
        model.start(0, 10_000_000L, "a");
        model.start(0, 10_000_000L, "b");
        assertThat(model.nanosUntilNextFinish()).isCloseTo(15_000_000L, within(1L));
    }

    private static List<String> finishAt(ProcessorSharingModel<String> model, long now) {
        List<ProcessorSharingModel.Job<String>> done = new ArrayList<>();
        model.finishDue(now, done);
        List<String> names = new ArrayList<>();
        done.forEach(job -> names.add(job.payload()));
        return names;
    }

    @Test
    void aPauseStopsEveryCallAndASlowPeriodStretchesIt() {
        ProcessorSharingModel<String> model = new ProcessorSharingModel<>(4, 1.0, 0);
        model.start(0, 10_000_000L, "a");
        model.changeSpeed(4_000_000L, 0.0); // 4 ms of its 10 ms done, then paused
        assertThat(model.nanosUntilNextFinish()).isGreaterThanOrEqualTo(Long.MAX_VALUE / 2);
        model.changeSpeed(104_000_000L, 0.1); // 100 ms later, a tenth of the speed: 6 ms of work take 60 ms
        assertThat(model.nanosUntilNextFinish()).isCloseTo(60_000_000L, org.assertj.core.data.Offset.offset(1L));
        List<ProcessorSharingModel.Job<String>> done = new java.util.ArrayList<>();
        model.finishDue(164_000_000L, done);
        assertThat(done).hasSize(1);
    }
}
