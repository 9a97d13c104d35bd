package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.CapturingScheduler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
        Timeout timeout = Timeout.builder().name("shared").timeout(Duration.ofMillis(5)).interruptOnTimeout(true).build();
        // The operation outlasts its deadline by far; should the timer thread be starved that long, the call ends in
        // time and the round is tried again.
        for (int round = 0; round < 5; round++) {
            Throwable thrown = catchThrowable(() -> timeout.call(() -> {
                Thread.currentThread().interrupt();
                long start = System.nanoTime();
                while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(300)) {
                    Thread.onSpinWait();
                }
                return "late";
            }));
            if (thrown instanceof TimeoutExceededException) {
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
                return;
            }
            Thread.interrupted();
        }
        throw new AssertionError("the shared wheel never fired within 300 ms in 5 rounds");
    }
}
