package dev.bulwark.internal.binding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.stats.CallTally;
import dev.bulwark.internal.stats.PriorityTally;
import dev.bulwark.internal.stats.SampledListener;
import dev.bulwark.internal.stats.TimingOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What both metrics back ends observe of a bulkhead, when, and in what order, decided once here. */
class BulkheadObserverTest {

    /** A back end that writes down what it is asked to record, with the counts it sees at that moment. */
    private static final class Recorder extends BulkheadObserver {
        final List<String> seen = new ArrayList<>();

        Recorder(boolean exactTiming, boolean observesWaits) {
            super(new TimingOptions(exactTiming, Duration.ofMinutes(1), 3), observesWaits);
        }

        @Override
        protected void recordWait(Wait wait, long nanos) {
            seen.add("wait " + wait + " " + nanos + " (counted rejections " + rejections() + ", cancellations "
                    + calls().cancelledCount() + ")");
        }

        @Override
        protected void recordRelease(long nanos) {
            seen.add("release " + nanos);
        }

        @Override
        protected void recordSampledRelease(long nanos, long weight) {
            seen.add("sampled release " + nanos + " x" + weight);
        }

        @Override
        protected Object captureCallerContext() {
            return "caller";
        }

        @Override
        protected void observe(int outcome, Rejection rejection, long waitedNanos, Object callerContext) {
            Rejection.Reason reason = CallTally.reason(outcome);
            assertThat(reason).isEqualTo(rejection == null ? null : rejection.reason());
            seen.add("observe " + (reason != null ? reason : outcome == CallTally.ADMITTED ? "ADMITTED" : "CANCELLED")
                    + " " + waitedNanos + " in " + callerContext);
        }

        long rejections() {
            long sum = 0;
            for (Rejection.Reason reason : Rejection.Reason.values()) {
                sum += calls().rejectedCount(reason);
            }
            return sum;
        }
    }

    private static Rejection refusal(Rejection.Reason reason, long waitedNanos) {
        return new Rejection("b", reason, 1, 1, 1, 1, Duration.ofNanos(waitedNanos), Priority.LOW);
    }

    @Test
    void aCallThatFoundAFreeSlotIsCountedAndNothingElse() {
        Recorder observer = new Recorder(false, true);

        observer.admitted(0);
        observer.admitted(0, Priority.NORMAL);
        observer.admitted(0, Priority.HIGH, null);

        assertThat(observer.seen).isEmpty();
        assertThat(observer.calls().admittedCount()).isEqualTo(3);
        assertThat(observer.priorities().count(Priority.NORMAL, PriorityTally.Outcome.ADMITTED)).isEqualTo(2);
        assertThat(observer.priorities().count(Priority.HIGH, PriorityTally.Outcome.ADMITTED)).isEqualTo(1);
    }

    @Test
    void onlyTheRefusalsThatFollowAWaitRecordIt_beforeTheirCount() {
        Recorder observer = new Recorder(false, false);

        observer.rejected(refusal(Rejection.Reason.QUEUE_FULL, 0));
        observer.rejected(refusal(Rejection.Reason.CLOSED, 7));
        observer.rejected(refusal(Rejection.Reason.WAIT_TIMEOUT, 10));
        observer.rejected(refusal(Rejection.Reason.EVICTED, 20), "context");
        observer.cancelled(30);

        assertThat(observer.seen).containsExactly(
                "wait TIMED_OUT 10 (counted rejections 2, cancellations 0)",
                "wait EVICTED 20 (counted rejections 3, cancellations 0)",
                "wait CANCELLED 30 (counted rejections 4, cancellations 0)");
        assertThat(observer.calls().rejectedCount(Rejection.Reason.EVICTED)).isEqualTo(1);
        assertThat(observer.calls().cancelledCount()).isEqualTo(1);
        assertThat(observer.priorities().count(Priority.LOW, PriorityTally.Outcome.REJECTED)).isEqualTo(4);
        assertThat(observer.priorities().count(Priority.NORMAL, PriorityTally.Outcome.CANCELLED)).isEqualTo(1);
    }

    @Test
    void waitsAndRefusalsAreObservedInTheCallersContextOnlyWhenTheBackEndObservesThem() {
        Recorder off = new Recorder(false, false);
        Recorder on = new Recorder(false, true);

        assertThat(off.callerContext()).isNull();
        assertThat(on.callerContext()).isEqualTo("caller");
        for (Recorder observer : List.of(off, on)) {
            observer.admitted(5, Priority.NORMAL, "queued caller");
            observer.rejected(refusal(Rejection.Reason.QUEUE_FULL, 0));
            observer.cancelled(6, Priority.HIGH, null);
        }

        assertThat(off.seen).noneMatch(line -> line.startsWith("observe"));
        assertThat(on.seen).filteredOn(line -> line.startsWith("observe")).containsExactly(
                "observe ADMITTED 5 in queued caller", "observe QUEUE_FULL 0 in null",
                "observe CANCELLED 6 in null");
    }

    @Test
    void releasesReportedOneByOneAreRecordedAndSampledOnesWeighedUntimedOnesIgnored() {
        Recorder exact = new Recorder(true, false);

        exact.released(100);
        exact.released(SampledListener.UNTIMED, 0);
        exact.released(200, 1_000);

        assertThat(exact.seen).containsExactly("release 100", "sampled release 200 x1");
        assertThat(exact.sampler().mask()).isZero();
    }
}
