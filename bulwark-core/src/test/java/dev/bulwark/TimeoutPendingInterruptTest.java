package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.CapturingScheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A timeout that interrupts on its deadline clears the interrupt it caused, and only that one: an interrupt already
 * pending when the deadline passes is the caller's (a {@code shutdownNow}, say) and survives the call. Before, the
 * policy cleared the thread's status whenever it timed out, losing that interrupt.
 */
class TimeoutPendingInterruptTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aPendingInterruptSurvivesATimeoutOnAGivenScheduler() {
        CapturingScheduler scheduler = new CapturingScheduler();
        Timeout timeout = Timeout.builder().name("given").timeout(Duration.ofSeconds(1)).interruptOnTimeout(true)
                .scheduler(scheduler).build();

        Throwable thrown = catchThrowable(() -> timeout.call(() -> {
            Thread.currentThread().interrupt(); // the caller's own, pending at the deadline
            scheduler.task(0).run();           // the deadline passes while the operation runs
            return "late";
        }));

        assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void theInterruptTheTimeoutCausedIsStillCleared() {
        CapturingScheduler scheduler = new CapturingScheduler();
        Timeout timeout = Timeout.builder().name("given").timeout(Duration.ofSeconds(1)).interruptOnTimeout(true)
                .scheduler(scheduler).build();

        Throwable thrown = catchThrowable(() -> timeout.call(() -> {
            scheduler.task(0).run();
            return "late";
        }));

        assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aPendingInterruptSurvivesATimeoutOnTheSharedWheel() {
        Timeout timeout = Timeout.builder().name("shared").timeout(Duration.ofMillis(5)).interruptOnTimeout(true)
                .build();
        SignalInside inside = new SignalInside();
        // The caller's own interrupt, pending before the deadline is even armed, so pending when it passes whatever
        // the timing. (Set inside the operation, a 5 ms deadline could pass first on a loaded machine: the timer then
        // interrupted the thread itself, and rightly cleared that interrupt, which the test took for the caller's.)
        Thread.currentThread().interrupt();

        Throwable thrown = catchThrowable(() -> Pipeline.of(timeout, inside).call(() -> {
            CancellationSignal inner = inside.signal;
            long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!inner.isCancelled() && System.nanoTime() < giveUpAt) {
                Thread.onSpinWait(); // until the wheel fires the deadline (which cancels the inner signal)
            }
            return "late";
        }));

        assertThat(thrown).isInstanceOf(TimeoutExceededException.class);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    /** A policy of one's own inside the timeout: it hands the operation on and keeps the signal it was given. */
    private static final class SignalInside implements Policy {
        volatile CancellationSignal signal;

        @Override
        public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation, CancellationSignal signal)
                throws X {
            this.signal = signal;
            return operation.get();
        }

        @Override
        public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                                  CancellationSignal signal) {
            throw new UnsupportedOperationException("sync only");
        }
    }
}
