package dev.bulwark;

import static dev.bulwark.testing.Threads.startQueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Behaviour 16 and the live reconfiguration of queue limit and maximum wait. */
class BulkheadLimitChangeTest {

    @Test
    void raisingTheLimitAdmitsQueuedCallersAtOnceInOrder() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(3).build();
        Permit holder = bulkhead.acquire();
        List<FutureTask<Permit>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(startQueued(bulkhead, "w" + i, bulkhead::acquire));
        }

        bulkhead.changeMaxConcurrency(3);

        assertThat(bulkhead.maxConcurrency()).isEqualTo(3);
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        Permit firstAdmitted = waiters.get(0).get(10, TimeUnit.SECONDS);
        Permit secondAdmitted = waiters.get(1).get(10, TimeUnit.SECONDS);
        assertThat(waiters.get(2)).isNotDone();
        firstAdmitted.close();
        Permit thirdAdmitted = waiters.get(2).get(10, TimeUnit.SECONDS);
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        secondAdmitted.close();
        thirdAdmitted.close();
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void loweringTheLimitLetsRunningCallsFinishAndAdmitsNobodyUntilBelowIt() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(4).maxQueue(1).build();
        List<Permit> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(bulkhead.acquire());
        }
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();

        bulkhead.changeMaxConcurrency(2);

        assertThat(bulkhead.executingCount()).isEqualTo(4);
        assertThat(held).noneMatch(Permit::isReleased);
        held.get(0).close();
        assertThat(waiter).isNotDone();
        assertThat(bulkhead.executingCount()).isEqualTo(3);
        held.get(1).close();
        assertThat(waiter).isNotDone();
        assertThat(bulkhead.executingCount()).isEqualTo(2);
        held.get(2).close();
        assertThat(waiter).isCompleted();
        assertThat(bulkhead.executingCount()).isEqualTo(2);
        assertThat(bulkhead.tryAcquire()).isEmpty();
        held.get(3).close();
        waiter.join().close();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.tryAcquire()).isPresent();
    }

    @Test
    void loweringAndRaisingAgainRestoresTheSlots() {
        Bulkhead bulkhead = Bulkhead.of(3);
        Permit held = bulkhead.acquire();

        bulkhead.changeMaxConcurrency(1);
        assertThat(bulkhead.tryAcquire()).isEmpty();
        bulkhead.changeMaxConcurrency(3);
        held.close();

        List<Permit> permits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            permits.add(bulkhead.tryAcquire().orElseThrow());
        }
        assertThat(bulkhead.tryAcquire()).isEmpty();
        permits.forEach(Permit::close);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void changingTheLimitNeverBlocksEvenWithWaitersParked() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(5).build();
        Permit holder = bulkhead.acquire();
        List<FutureTask<Integer>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiters.add(startQueued(bulkhead, "w" + i, () -> bulkhead.call(() -> 1)));
        }

        // Lowering with waiters parked returns at once (this thread would hang otherwise).
        bulkhead.changeMaxConcurrency(1);
        bulkhead.changeMaxConcurrency(10);

        for (FutureTask<Integer> waiter : waiters) {
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        }
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aSmallerQueueLimitOnlyRefusesNewcomers() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(3).build();
        Permit holder = bulkhead.acquire();
        List<CompletableFuture<Permit>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queued.add(bulkhead.acquireAsync());
        }

        bulkhead.changeMaxQueue(1);

        assertThat(bulkhead.maxQueue()).isEqualTo(1);
        assertThat(bulkhead.queuedCount()).isEqualTo(3);
        assertThat(bulkhead.acquireAsync()).isCompletedExceptionally();
        holder.close();
        for (CompletableFuture<Permit> future : queued) {
            future.join().close();
        }
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void changingTheMaxWaitAppliesToNewcomers() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        bulkhead.changeMaxWait(Duration.ofMillis(5));
        assertThat(bulkhead.maxWait()).contains(Duration.ofMillis(5));
        try (Permit held = bulkhead.acquire()) {
            assertThatThrownBy(bulkhead::acquire).isInstanceOf(BulkheadRejectedException.class);
        }
        bulkhead.changeMaxWait(null);
        assertThat(bulkhead.maxWait()).isEmpty();
    }

    @Test
    void badRunTimeChangesFailAndNameTheParameter() {
        Bulkhead bulkhead = Bulkhead.of(1);
        assertThatThrownBy(() -> bulkhead.changeMaxConcurrency(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxConcurrency").hasMessageContaining("0");
        assertThatThrownBy(() -> bulkhead.changeMaxQueue(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxQueue").hasMessageContaining("-1");
        assertThatThrownBy(() -> bulkhead.changeMaxWait(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait");
        assertThat(bulkhead.maxConcurrency()).isEqualTo(1);
    }
}
