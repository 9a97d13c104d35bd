package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A {@link Scheduler} that throws something other than a {@link java.util.concurrent.RejectedExecutionException} (an
 * {@link Error}, an {@link IllegalStateException}) from {@code schedule} never leaves an asynchronous call's future
 * incomplete, nor a waiter queued for nobody: each policy ends the call as the {@link Scheduler} Javadoc says.
 */
class SchedulerThrowsTest {

    private static Scheduler throwing(Throwable thrown) {
        return (task, delay, unit) -> {
            if (thrown instanceof Error) {
                throw (Error) thrown;
            }
            throw (RuntimeException) thrown;
        };
    }

    @Test
    void whateverTheSchedulerThrowsTheAsyncRetryEndsAsDocumented() {
        List<String> reported = new CopyOnWriteArrayList<>();
        RetryListener listener = new RetryListener() {
            @Override
            public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
                reported.add("failed after " + attempts + ": " + failure.getClass().getSimpleName());
            }
        };
        IOException last = new IOException("last");

        // An Error is never swallowed: the call fails with it, the same instance.
        AssertionError broken = new AssertionError("the scheduler broke");
        Retry erring = Retry.builder().delay(Duration.ofSeconds(1)).scheduler(throwing(broken)).listener(listener)
                .build();
        CompletableFuture<String> failedWithTheError = erring.callAsync(() -> CompletableFuture.failedFuture(last));
        assertThat(failedWithTheError).isCompletedExceptionally();
        assertThat(failedWithTheError.handle((v, e) -> e).join()).isSameAs(broken);

        // Any RuntimeException is a refusal: the last failure stands, as if no attempt were left.
        Retry refusing = Retry.builder().delay(Duration.ofSeconds(1))
                .scheduler(throwing(new IllegalStateException("no timer"))).listener(listener).build();
        CompletableFuture<String> endedWithTheLastFailure = refusing.callAsync(
                () -> CompletableFuture.failedFuture(last));
        assertThat(endedWithTheLastFailure).isCompletedExceptionally();
        assertThat(endedWithTheLastFailure.handle((v, e) -> e).join()).isSameAs(last);

        assertThat(reported).containsExactly("failed after 1: AssertionError", "failed after 1: IOException");
    }

    @Test
    void anErrorFromTheSchedulerFailsTheAsyncTimeoutsFutureInsteadOfEscapingCallAsync() {
        AssertionError broken = new AssertionError("the scheduler broke");
        Timeout timeout = Timeout.builder().timeout(Duration.ofSeconds(1)).scheduler(throwing(broken)).build();
        AtomicInteger started = new AtomicInteger();

        CompletableFuture<String> call = timeout.callAsync(() -> {
            started.incrementAndGet();
            return new CompletableFuture<>();
        }, CancellationSignal.create());

        assertThat(call).isCompletedExceptionally();
        assertThat(call.handle((v, e) -> e).join()).isSameAs(broken);
        assertThat(started).as("the operation never started").hasValue(0);
    }

    @Test
    void anErrorFromTheSchedulerFailsAnAsyncBulkheadWaiterAndLeavesNothingQueued() {
        AssertionError broken = new AssertionError("the scheduler broke");
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(2))
                .scheduler(throwing(broken)).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger runs = new AtomicInteger();

        CompletableFuture<Integer> queued = bulkhead.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        });

        assertThat(queued).isCompletedExceptionally();
        assertThat(queued.handle((v, e) -> e).join()).isSameAs(broken);
        assertThat(bulkhead.queuedCount()).isZero();
        holder.close();
        assertThat(runs).as("the refused waiter never runs").hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anErrorFromTheSchedulerFailsAFairShareWaiterAndGivesItsKeysSlotBack() {
        AssertionError broken = new AssertionError("the scheduler broke");
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofSeconds(30)).build();
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().name("tenants")
                .globalLimit(global).defaultConfig(Bulkhead.builder().maxConcurrency(10).maxQueue(100).config())
                .fairShares().scheduler(throwing(broken)).build();
        CompletableFuture<String> holding = new CompletableFuture<>();
        CompletableFuture<String> first = partitioned.callAsync("a", () -> holding);
        AtomicInteger runs = new AtomicInteger();

        CompletableFuture<String> queued = partitioned.callAsync("b", () -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("b");
        });

        assertThat(queued).isCompletedExceptionally();
        assertThat(queued.handle((v, e) -> e).join()).isSameAs(broken);
        assertThat(partitioned.fairQueuedCount()).isZero();
        assertThat(partitioned.partition("b").map(Bulkhead::executingCount).orElse(0))
                .as("the refused call gave its key's slot back").isZero();
        holding.complete("a");
        assertThat(first).isCompletedWithValue("a");
        assertThat(runs).hasValue(0);
        assertThat(global.executingCount()).isZero();
    }

    /**
     * Under a fake ticker a blocking waiter also asks the scheduler to wake it at its deadline. An Error from that
     * request escaped the wait with the waiter still queued, so the slot the holder then released went to nobody.
     */
    @Test
    void anErrorFromTheSchedulerLeavesNoBlockingWaiterQueuedForNobodyUnderAFakeTicker() throws Exception {
        AtomicLong now = new AtomicLong();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofMinutes(1))
                .ticker(now::get).scheduler(throwing(new AssertionError("the scheduler broke"))).build();
        Permit holder = bulkhead.acquire();
        FutureTask<Permit> blocked = new FutureTask<>(bulkhead::acquire);
        Thread waiter = new Thread(blocked, "blocked-waiter");
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.queuedCount() == 1 || blocked.isDone());

        holder.close();

        try (Permit granted = blocked.get(10, TimeUnit.SECONDS)) {
            assertThat(granted).isNotNull();
            assertThat(bulkhead.executingCount()).isEqualTo(1);
        }
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }
}
