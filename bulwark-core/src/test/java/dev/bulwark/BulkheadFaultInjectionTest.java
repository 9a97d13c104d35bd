package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fault injection: the mixed workload runs while operations throw {@link Error}s (sync, async supplier and async
 * stage), every listener, the overflow handler and the retry and timeout listeners throw (errors and runtime
 * exceptions), threads are interrupted at random points, and the timer refuses work. Afterwards every call has
 * ended, every slot is free, nothing is queued, and every admission was released exactly once.
 */
@Tag("slow")
class BulkheadFaultInjectionTest {

    private static final long SECONDS = 8;

    @Test
    @DisplayName("errors, throwing listeners and handlers, interrupts and a timer refusing a tenth of its work")
    void everythingThatCanThrowThrowsAndEverySlotIsStillFreeAfterwards() throws Exception {
        Scheduler flaky = (task, delay, unit) -> {
            if (ThreadLocalRandom.current().nextInt(10) == 0) {
                throw new RejectedExecutionException("injected: the timer refused the task");
            }
            return Scheduler.shared().schedule(task, delay, unit);
        };
        MixedWorkload workload = new MixedWorkload(true, flaky);
        try {
            workload.runEpoch(MixedWorkload.platformThreads("faulty"), 6, SECONDS, 1);
        } finally {
            workload.shutdown();
        }
        System.out.println("fault injection: " + workload.summary());
        assertThat(workload.injected.get()).as("faults were injected").isPositive();
        assertThat(workload.completed.get()).as("calls still completed").isPositive();
    }

    @Test
    @DisplayName("the timer's executor is shut down mid-run: later timed waits are refused, nobody waits forever")
    void aTimerExecutorShutDownMidRunRefusesLaterWaitsAndStrandsNobody() throws Exception {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);
        executor.setRemoveOnCancelPolicy(true);
        // The retry keeps a working timer: an asynchronous retry whose delay a shut-down executor dropped never
        // completes (Scheduler.of says so), and a worker joining that call would wait forever. The bulkhead's waits
        // and the timeout's deadlines are what this test drops.
        MixedWorkload workload = new MixedWorkload(false, Scheduler.of(executor), Scheduler.shared());
        Thread killer = new Thread(() -> {
            // Mid-run by progress, not by the clock: once the workload is well under way with a working timer.
            await().atMost(Duration.ofSeconds(SECONDS)).until(() -> workload.completed.get() >= 10_000);
            // Tasks already accepted are dropped: their waits end by a grant or a cancellation instead.
            executor.shutdownNow();
        });
        killer.start();
        try {
            workload.runEpoch(MixedWorkload.platformThreads("timerless"), 6, SECONDS, 2);
        } finally {
            workload.shutdown();
            killer.join();
        }
        System.out.println("timer shut down: " + workload.summary());
        assertThat(executor.isShutdown()).isTrue();
        assertThat(workload.refused.get()).isPositive();
    }
}
