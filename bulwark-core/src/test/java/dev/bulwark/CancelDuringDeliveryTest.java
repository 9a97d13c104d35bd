package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.CountingListener;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A caller cancelling the future of a queued asynchronous call while its grant is being delivered: before the
 * delivery starts the operation, the cancel keeps it from running and passes the slot on; once it has started (its
 * admission reported to listeners), the cancel is a running call's. The first two tests force the cancel into the
 * delivery through the one piece of foreign code that runs there, the cancel of the waiter's maximum-wait timer on a
 * scheduler given to the bulkhead; before the hand-over was decided by a compare-and-set the delivery had already
 * looked at the future, and ran the operation for a caller whose cancel had returned {@code true}.
 */
class CancelDuringDeliveryTest {

    private final AtomicReference<CompletableFuture<?>> cancelOnDisarm = new AtomicReference<>();
    private final AtomicBoolean cancelReturned = new AtomicBoolean();
    private final CountingListener listener = new CountingListener();

    /** A scheduler whose timers never fire; cancelling one cancels the future set in {@link #cancelOnDisarm}. */
    private final Scheduler cancellingScheduler = (task, delay, unit) -> () -> {
        CompletableFuture<?> future = cancelOnDisarm.getAndSet(null);
        if (future != null) {
            cancelReturned.set(future.cancel(false));
        }
    };

    private Bulkhead bulkhead() {
        return Bulkhead.builder().name("delivery").maxConcurrency(1).maxQueue(1).maxWait(Duration.ofMinutes(1))
                .scheduler(cancellingScheduler).listener(listener).build();
    }

    @Test
    void aCancelDuringTheDeliveryBeforeTheStartKeepsTheOperationFromRunning() {
        Bulkhead bulkhead = bulkhead();
        AtomicInteger ran = new AtomicInteger();
        Permit holder = bulkhead.acquire();
        CompletableFuture<String> waiter = bulkhead.callAsync(() -> {
            ran.incrementAndGet();
            return new CompletableFuture<>(); // would hold the slot for ever
        });
        cancelOnDisarm.set(waiter);

        holder.close(); // grants the waiter and delivers it on this thread

        assertThat(cancelReturned).isTrue();
        assertThat(waiter).isCancelled();
        assertThat(ran).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.tryAcquire()).as("the slot was passed on").isPresent();
        assertThat(listener.cancelled).hasValue(1);
        assertThat(listener.admitted).as("the holder and the last tryAcquire").hasValue(2);
    }

    @Test
    void aPermitFutureCancelledDuringTheDeliveryIsReportedCancelledNotAdmitted() {
        Bulkhead bulkhead = bulkhead();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        cancelOnDisarm.set(waiter);

        holder.close();

        assertThat(cancelReturned).isTrue();
        assertThat(waiter).isCancelled();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(listener.admitted).as("only the holder").hasValue(1);
        assertThat(listener.cancelled).hasValue(1);
        assertThat(listener.released).hasValue(1);
    }

    @Test
    void aCancelAfterTheStartIsARunningCallsCancel() {
        AtomicReference<CompletableFuture<?>> cancelWhenAdmitted = new AtomicReference<>();
        Bulkhead bulkhead = Bulkhead.builder().name("started").maxConcurrency(1).maxQueue(1)
                .listener(new BulkheadListener() {
                    @Override
                    public void admitted(long waitedNanos) {
                        CompletableFuture<?> future = cancelWhenAdmitted.getAndSet(null);
                        if (future != null) {
                            cancelReturned.set(future.cancel(false));
                        }
                    }
                }).build();
        CompletableFuture<String> stage = new CompletableFuture<>();
        AtomicInteger ran = new AtomicInteger();
        Permit holder = bulkhead.acquire();
        CompletableFuture<String> waiter = bulkhead.callAsync(() -> {
            ran.incrementAndGet();
            return stage;
        });
        cancelWhenAdmitted.set(waiter);

        holder.close();

        assertThat(cancelReturned).isTrue();
        assertThat(waiter).isCancelled();
        assertThat(ran).as("the admission is reported as the operation starts").hasValue(1);
        assertThat(bulkhead.executingCount()).as("held until the operation's own stage completes").isEqualTo(1);
        stage.complete("late");
        assertThat(bulkhead.executingCount()).isZero();
    }
}
