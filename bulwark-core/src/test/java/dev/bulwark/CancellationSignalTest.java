package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CancellationSignalTest {

    @Test
    void theFirstCancelWinsAndFixesTheReason() {
        CancellationSignal signal = CancellationSignal.create();
        IllegalStateException first = new IllegalStateException("first");

        assertThat(signal.isCancelled()).isFalse();
        assertThat(signal.reason()).isEmpty();
        assertThat(signal.cancel(first)).isTrue();
        assertThat(signal.cancel(new IllegalStateException("second"))).isFalse();
        assertThat(signal.cancel()).isFalse();

        assertThat(signal.isCancelled()).isTrue();
        assertThat(signal.reason()).containsSame(first);
    }

    @Test
    void cancelWithoutReasonHasNoReason() {
        CancellationSignal signal = CancellationSignal.create();
        assertThat(signal.cancel()).isTrue();
        assertThat(signal.reason()).isEmpty();
        assertThat(signal.toString()).contains("cancelled");
    }

    @Test
    void listenersRunOnceInRegistrationOrder() {
        CancellationSignal signal = CancellationSignal.create();
        List<String> calls = new ArrayList<>();
        signal.onCancel(() -> calls.add("a"));
        signal.onCancel(() -> calls.add("b"));

        signal.cancel();
        signal.cancel();

        assertThat(calls).containsExactly("a", "b");
    }

    @Test
    void aListenerAddedAfterCancellationRunsAtOnce() {
        CancellationSignal signal = CancellationSignal.create();
        signal.cancel();
        AtomicInteger runs = new AtomicInteger();

        CancellationSignal.Registration registration = signal.onCancel(runs::incrementAndGet);

        assertThat(runs).hasValue(1);
        registration.close();
    }

    @Test
    void aClosedRegistrationDoesNotRun() {
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger runs = new AtomicInteger();
        CancellationSignal.Registration registration = signal.onCancel(runs::incrementAndGet);
        CancellationSignal.Registration kept = signal.onCancel(runs::incrementAndGet);

        registration.close();
        registration.close();
        signal.cancel();
        kept.close();

        assertThat(runs).hasValue(1);
    }

    @Test
    void aThrowingListenerDoesNotStopTheOthers() {
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger runs = new AtomicInteger();
        signal.onCancel(() -> {
            throw new IllegalStateException("listener broke");
        });
        signal.onCancel(runs::incrementAndGet);

        assertThat(signal.cancel()).isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void noneNeverCancels() {
        CancellationSignal none = CancellationSignal.none();
        AtomicInteger runs = new AtomicInteger();
        none.onCancel(runs::incrementAndGet).close();

        assertThat(none.cancel()).isFalse();
        assertThat(none.cancel(new RuntimeException())).isFalse();
        assertThat(none.isCancelled()).isFalse();
        assertThat(none.canBeCancelled()).isFalse();
        assertThat(runs).hasValue(0);
        assertThat(CancellationSignal.none()).isSameAs(none);
    }

    @Test
    void nullArgumentsAreRefused() {
        CancellationSignal signal = CancellationSignal.create();
        assertThatThrownBy(() -> signal.cancel(null)).isInstanceOf(NullPointerException.class).hasMessage("reason");
        assertThatThrownBy(() -> signal.onCancel(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("listener");
    }

    @Test
    void concurrentCancelsHaveExactlyOneWinnerAndListenersRunOnce() throws Exception {
        for (int round = 0; round < 500; round++) {
            CancellationSignal signal = CancellationSignal.create();
            AtomicInteger listenerRuns = new AtomicInteger();
            AtomicInteger winners = new AtomicInteger();
            CyclicBarrier barrier = new CyclicBarrier(4);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                boolean registers = i % 2 == 0;
                Thread thread = new Thread(() -> {
                    try {
                        barrier.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    if (registers) {
                        signal.onCancel(listenerRuns::incrementAndGet);
                    }
                    if (signal.cancel()) {
                        winners.incrementAndGet();
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(winners).hasValue(1);
            assertThat(listenerRuns).hasValue(2);
        }
    }
}
