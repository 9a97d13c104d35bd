package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reserves against the limits a bulkhead really runs at: an adaptive limit's lowest, a sum beyond {@code int}, and a
 * weight that fits {@code maxConcurrency} but not the slots its priority may take (docs/priorities.md, "Reserved
 * headroom").
 */
@Timeout(10) // a weight the reserves hold back for good would otherwise wait for ever
class BulkheadReserveLimitsTest {

    private final List<Rejection> rejections = new CopyOnWriteArrayList<>();

    @Test
    void reservesMustStayBelowTheLowestLimitAnAdaptiveBulkheadMayRunAt() {
        // selfTuning() starts at min(maxConcurrency, 4): a reserve of 4 would leave a NORMAL call no slot, idle or not.
        Bulkhead.Builder selfTuning = Bulkhead.builder().maxConcurrency(10).maxQueue(5)
                .reserve(Priority.CRITICAL, 4).adaptive(AdaptiveLimit.selfTuning().build());
        assertThatThrownBy(selfTuning::config).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("reserve").hasMessageContaining("minLimit (1)");
        assertThatThrownBy(() -> Bulkhead.builder().maxConcurrency(10).reserve(Priority.HIGH, 1)
                .adaptive(AdaptiveLimit.aimd().build()).config())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("reserve");

        Bulkhead raised = selfTuning.adaptive(AdaptiveLimit.selfTuning().minLimit(5).build()).build();
        assertThat(raised.maxConcurrency()).isEqualTo(5);
        assertThat(raised.tryAcquire()).isPresent();
        assertThat(Bulkhead.builder().adaptive(AdaptiveLimit.aimd().build()).build().maxConcurrency()).isEqualTo(10);
    }

    @Test
    void reservesWhoseSumOverflowsAnIntAreRefused() {
        assertThatThrownBy(() -> Bulkhead.builder().maxConcurrency(10).reserve(Priority.CRITICAL, Integer.MAX_VALUE)
                .reserve(Priority.HIGH, Integer.MAX_VALUE).config())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("reserve")
                .hasMessageContaining("(" + (2L * Integer.MAX_VALUE) + ")");
    }

    @Test
    void aWeightAboveTheSlotsItsPriorityMayTakeFailsAtOnce() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(10).maxQueue(5)
                .reserve(Priority.CRITICAL, 2).build();
        CallOptions normalNine = CallOptions.builder().weight(9).build();
        assertThatThrownBy(() -> bulkhead.acquireWith(normalNine)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("weight (9) exceeds the 8 slots a NORMAL call may take in bulkhead 'db' (maxConcurrency"
                        + " 10 less 2 reserved for higher priorities): such a call could never get its slots");
        assertThatThrownBy(() -> bulkhead.tryAcquireWith(normalNine)).isInstanceOf(IllegalArgumentException.class);
        assertThat(bulkhead.acquireAsyncWith(normalNine)).failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class).havingCause()
                .isInstanceOf(IllegalArgumentException.class);
        // The same weight fits a CRITICAL call, and a NORMAL one of 8.
        bulkhead.acquireWith(CallOptions.builder().weight(9).priority(Priority.CRITICAL).build()).close();
        bulkhead.acquireWith(CallOptions.builder().weight(8).build()).close();
        // Nothing was queued, so a later light call runs on the idle bulkhead.
        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(bulkhead.acquireAsync(1)).isCompleted();
    }

    @Test
    void loweringTheLimitRefusesAWaiterThatTheReservesAboveItWouldHoldForGood() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(10).maxQueue(5).reserve(Priority.CRITICAL, 2)
                .onRejected(rejections::add).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> heavy = bulkhead.acquireAsync(8); // 9 free less 8 leaves 1 < the 2 reserved
        CompletableFuture<Permit> light = bulkhead.acquireAsync(1);
        assertThat(heavy).isNotDone();
        assertThat(light).isNotDone();

        bulkhead.changeMaxConcurrency(9); // a NORMAL call may now take 7 at most: weight 8 could never run
        assertThat(heavy).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOfSatisfying(BulkheadRejectedException.class, refused ->
                        assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT));
        assertThat(light).isCompleted();
        light.join().close();
        holder.close();
        assertThat(rejections).extracting(Rejection::reason).containsExactly(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
        Permit all = bulkhead.acquireWith(CallOptions.builder().weight(9).priority(Priority.CRITICAL).build());
        assertThat(bulkhead.tryAcquireWith(CallOptions.priority(Priority.CRITICAL))).isEmpty();
        all.close();
    }

    @Test
    void aLimitTheReservesWouldFillIsRefusedSoThatNoWaiterIsStrandedBehindThem() {
        // Found by audit: a weight-1 NORMAL waiter was left queued for good when the limit fell to the reserves (no
        // slot left that a NORMAL call may take, and the sweep of too-heavy waiters skipped weight 1).
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(4).maxQueue(5).reserve(Priority.CRITICAL, 2)
                .reserve(Priority.NORMAL, 1).build();
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire(); // a NORMAL call may take 4 - 2 = 2 slots
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        assertThat(waiter).isNotDone();

        assertThatThrownBy(() -> bulkhead.changeMaxConcurrency(3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrency (3)")
                .hasMessageContaining("3 slots reserved").hasMessageContaining("reserve");
        assertThat(bulkhead.maxConcurrency()).isEqualTo(4);
        assertThat(waiter).isNotDone();

        first.close();
        assertThat(waiter).isCompleted();
        waiter.join().close();
        second.close();
        bulkhead.changeMaxConcurrency(10);
        assertThat(bulkhead.maxConcurrency()).isEqualTo(10);
    }
}
