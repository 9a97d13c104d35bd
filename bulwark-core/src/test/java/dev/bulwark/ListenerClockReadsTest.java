package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Issue 20: a bulkhead reads its clock only when a listener needs a time, and hands times over as nanoseconds. */
class ListenerClockReadsTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicLong reads = new AtomicLong();
    private final Ticker ticker = () -> {
        reads.incrementAndGet();
        return now.get();
    };

    @Test
    void aListenerThatDoesNotWantExecutionTimesCostsNoClockReading() {
        List<String> seen = new ArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).ticker(ticker).listener(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                seen.add("admitted " + waitedNanos);
            }

            @Override
            public void rejected(Rejection rejection) {
                seen.add("rejected");
            }
        }).build();

        bulkhead.call(() -> now.addAndGet(5));
        bulkhead.call(() -> now.addAndGet(5));

        assertThat(seen).containsExactly("admitted 0", "admitted 0");
        assertThat(reads.get()).isZero();
    }

    @Test
    void aListenerOfReleasesGetsEveryExecutionTimeInNanoseconds() {
        List<Long> executions = new ArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).ticker(ticker).listener(new BulkheadListener() {
            @Override
            public void released(long executionNanos) {
                executions.add(executionNanos);
            }
        }).build();

        bulkhead.call(() -> now.addAndGet(1_500));
        bulkhead.run(() -> now.addAndGet(7));

        assertThat(executions).containsExactly(1_500L, 7L);
        assertThat(reads.get()).isEqualTo(4);
    }

    @Test
    void withoutAnyListenerNoClockIsRead() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).ticker(ticker).build();
        bulkhead.call(() -> 1);
        try (Permit permit = bulkhead.acquire()) {
            assertThat(permit).isNotNull();
        }
        assertThat(reads.get()).isZero();
    }

    @Test
    void aListenerAttachedWhileUnobservedCallsRunSeesTheirReleasesAsZero() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(4).ticker(ticker).build();
        Permit permit = bulkhead.acquire();
        java.util.concurrent.CompletableFuture<String> asyncWork = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<String> asyncCall = bulkhead.callAsync(() -> asyncWork);
        Permit weighted = bulkhead.acquire(2);
        List<Long> executions = new ArrayList<>();
        bulkhead.addListener(new BulkheadListener() {
            @Override
            public void released(long executionNanos) {
                executions.add(executionNanos);
            }
        });
        now.addAndGet(5);

        permit.close();
        asyncWork.complete("done");
        weighted.close();

        // Started while nobody observed the bulkhead, they were never timed: not the clock's raw reading.
        assertThat(asyncCall).isCompletedWithValue("done");
        assertThat(executions).containsExactly(0L, 0L, 0L);
    }
}
