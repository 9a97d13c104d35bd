package dev.bulwark.internal.binding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.stats.CallTally;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What both metrics back ends observe of a retry, a timeout and a partitioned bulkhead, decided once here. */
class ObserversTest {

    private final List<String> seen = new ArrayList<>();

    @Test
    void aRetryCountsEachCallByHowItEndedAndEachRetry() {
        RetryObserver observer = new RetryObserver("retry listener", outcome -> () -> seen.add(outcome.name()),
                () -> seen.add("retry"));

        observer.succeeded(1);
        observer.retryScheduled(null);
        observer.succeeded(2);
        observer.failed(3, new IllegalStateException(), true);
        observer.failed(1, new CancellationException(), false);
        observer.failed(1, new IllegalArgumentException(), false);

        assertThat(seen).containsExactly("SUCCEEDED_WITHOUT_RETRY", "retry", "SUCCEEDED_AFTER_RETRY",
                "FAILED_RETRIES_EXHAUSTED", "CANCELLED", "FAILED_NOT_RETRYABLE");
        assertThat(observer).hasToString("retry listener");
    }

    @Test
    void aTimeoutCountsInTimeBeforeRecordingItsDurationAndCountsTimeouts() {
        AtomicLong recorded = new AtomicLong();
        TimeoutObserver observer = new TimeoutObserver("timeout listener", () -> seen.add("in_time"),
                () -> seen.add("timed_out"), nanos -> {
                    seen.add("duration");
                    recorded.set(nanos);
                });

        observer.finishedInTime(42);
        observer.timedOut(null);

        assertThat(seen).containsExactly("in_time", "duration", "timed_out");
        assertThat(recorded).hasValue(42);
    }

    @Test
    void aPartitionedBulkheadCountsCallsByOutcomeAndRejectionReason() {
        PartitionedObserver observer = new PartitionedObserver("partitioned listener", outcome -> () -> seen.add(
                outcome == CallTally.ADMITTED ? "admitted" : outcome == CallTally.CANCELLED ? "cancelled"
                        : CallTally.reason(outcome).name()));

        observer.admitted(0, Priority.NORMAL);
        observer.cancelled(5, Priority.LOW);
        observer.rejected(new Rejection("p", Rejection.Reason.QUEUE_FULL, 1, 0, 1, 0, Duration.ZERO));

        assertThat(seen).containsExactly("admitted", "cancelled", "QUEUE_FULL");
    }
}
