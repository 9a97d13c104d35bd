package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.CountingListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A thread that comes to a bulkhead with its interrupt status already set: the bulkhead's refusals on arrival come
 * first (it is told {@code CLOSED} by a closed bulkhead, with the handler and listeners told too), a free slot runs
 * the call, and only a call that queues is ended by the interrupt (a cancellation, with the status kept). Before, the
 * sync wait checked the interrupt before joining and turned every one of these into a {@code CancellationException}.
 */
class InterruptedCallerTest {

    private final List<Rejection> handled = new CopyOnWriteArrayList<>();
    private final CountingListener listener = new CountingListener();

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    private Bulkhead bulkhead() {
        return Bulkhead.builder().name("interrupted").maxConcurrency(1).maxQueue(1).onRejected(handled::add)
                .listener(listener).build();
    }

    @Test
    void aClosedBulkheadRefusesAnInterruptedCallerAsClosed() {
        Bulkhead bulkhead = bulkhead();
        bulkhead.drain(Duration.ZERO);
        Thread.currentThread().interrupt();

        Throwable thrown = catchThrowable(() -> bulkhead.call(() -> "never"));

        assertThat(thrown).isInstanceOf(BulkheadRejectedException.class);
        assertThat(((BulkheadRejectedException) thrown).rejection().reason()).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(handled).extracting(Rejection::reason).containsExactly(Rejection.Reason.CLOSED);
        assertThat(listener.rejected).hasValue(1);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void anInterruptedCallerThatFindsASlotFreeRuns() {
        Bulkhead bulkhead = bulkhead();
        Thread.currentThread().interrupt();

        assertThat(bulkhead.call(() -> "ran")).isEqualTo("ran");
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void anInterruptedCallerThatMustQueueLeavesCancelledAndKeepsItsStatus() {
        Bulkhead bulkhead = bulkhead();
        try (Permit holder = bulkhead.acquire()) {
            Thread.currentThread().interrupt();

            Throwable thrown = catchThrowable(() -> bulkhead.call(() -> "never"));

            assertThat(thrown).isInstanceOf(CancellationException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(bulkhead.queuedCount()).isZero();
            assertThat(listener.cancelled).hasValue(1);
            assertThat(handled).isEmpty();
        }
    }
}
