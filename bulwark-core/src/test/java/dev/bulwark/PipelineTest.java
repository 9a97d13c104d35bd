package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Issue 3, behaviours 1, 2 and 8: order, the seed example, and listeners that throw. */
class PipelineTest {

    /** A policy from outside Bulwark that records entering and leaving. */
    private static Policy recorder(String name, List<String> log) {
        return new Policy() {
            @Override
            public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                   CancellationSignal signal) throws X {
                log.add("enter " + name);
                try {
                    return operation.get();
                } finally {
                    log.add("exit " + name);
                }
            }

            @Override
            public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                                      CancellationSignal signal) {
                log.add("enter " + name);
                return operation.get().toCompletableFuture().whenComplete((v, e) -> log.add("exit " + name));
            }
        };
    }

    @Test
    void policiesRunOutermostFirstAndExitInReverse() {
        List<String> log = new ArrayList<>();
        Pipeline pipeline = Pipeline.of(recorder("a", log), Retry.builder().build(), recorder("b", log),
                Bulkhead.of(1), recorder("c", log));

        String result = pipeline.call(() -> {
            log.add("operation");
            return "done";
        });

        assertThat(result).isEqualTo("done");
        assertThat(log).containsExactly("enter a", "enter b", "enter c", "operation", "exit c", "exit b", "exit a");
    }

    @Test
    void asyncPoliciesRunOutermostFirst() {
        List<String> log = new CopyOnWriteArrayList<>();
        Pipeline pipeline = Pipeline.of(recorder("a", log), Bulkhead.of(1), recorder("b", log));

        CompletableFuture<String> result = pipeline.callAsync(() -> {
            log.add("operation");
            return CompletableFuture.completedFuture("done");
        });

        assertThat(result).isCompletedWithValue("done");
        assertThat(log).containsExactly("enter a", "enter b", "operation", "exit b", "exit a");
    }

    @Test
    void nestedPipelinesBehaveAsIfFlattened() {
        List<String> log = new ArrayList<>();
        Pipeline inner = Pipeline.of(recorder("b", log), recorder("c", log));
        Pipeline outer = Pipeline.of(recorder("a", log), inner, recorder("d", log));

        outer.run(() -> log.add("operation"));

        assertThat(log).containsExactly("enter a", "enter b", "enter c", "enter d", "operation", "exit d",
                "exit c", "exit b", "exit a");
        assertThat(outer.policies()).hasSize(3).element(1).isSameAs(inner);
    }

    @Test
    void badCompositionFailsAtConstruction() {
        assertThatThrownBy(Pipeline::of).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policies");
        assertThatThrownBy(() -> Pipeline.of(Bulkhead.of(1), null)).isInstanceOf(NullPointerException.class)
                .hasMessage("policies[1]");
        assertThatThrownBy(() -> Pipeline.of((Policy[]) null)).isInstanceOf(NullPointerException.class)
                .hasMessage("policies");
    }

    @Test
    void theSeedExampleRetriesARejectedCallAndRunsItOnceWhenASlotFrees() {
        Bulkhead bulkhead = Bulkhead.of(10);
        List<Permit> busy = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            busy.add(bulkhead.acquire());
        }
        List<RetryEvent> retries = new ArrayList<>();
        Retry retry = Retry.builder().handle(BulkheadRejectedException.class).maxRetries(3)
                .delay(Duration.ofMillis(200)).onRetry(event -> {
                    retries.add(event);
                    if (event.attempt() == 1) {
                        busy.remove(0).close(); // a slot frees during the first delay
                    }
                }).build();
        Policy policy = Pipeline.of(retry, bulkhead);
        AtomicInteger runs = new AtomicInteger();

        String result = policy.call(() -> {
            runs.incrementAndGet();
            return "served";
        });

        assertThat(result).isEqualTo("served");
        assertThat(runs).hasValue(1);
        assertThat(retries).hasSize(1);
        assertThat(retries.get(0).nextDelay()).isEqualTo(Duration.ofMillis(200));
        assertThat(retries.get(0).failure()).isInstanceOf(BulkheadRejectedException.class);
        busy.forEach(Permit::close);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void theSeedExampleGivesTheFourthRejectionToTheCallerWhenNoSlotFrees() {
        List<Rejection> rejections = new ArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(10).onRejected(rejections::add).build();
        List<Permit> busy = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            busy.add(bulkhead.acquire());
        }
        List<RetryEvent> retries = new ArrayList<>();
        Policy policy = Pipeline.of(Retry.builder().handle(BulkheadRejectedException.class).maxRetries(3)
                .delay(Duration.ofMillis(200)).onRetry(retries::add).build(), bulkhead);
        AtomicInteger runs = new AtomicInteger();

        Throwable thrown = catchThrowable(() -> policy.call(runs::incrementAndGet));

        assertThat(runs).hasValue(0);
        assertThat(rejections).hasSize(4);
        assertThat(retries).extracting(RetryEvent::attempt).containsExactly(1, 2, 3);
        assertThat(thrown).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> assertThat(e.rejection()).isSameAs(rejections.get(3)));
        busy.forEach(Permit::close);
    }

    @Test
    void cancellingTheOuterSignalReachesAQueuedInnerBulkheadWaiterAtOnce() {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).build();
        Pipeline pipeline = Pipeline.of(Retry.builder().scheduler(scheduler).build(),
                Timeout.builder().timeout(Duration.ofSeconds(30)).scheduler(scheduler).build(), bulkhead);
        Permit holder = bulkhead.acquire();
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger runs = new AtomicInteger();
        CompletableFuture<Integer> call = pipeline.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        }, signal);
        assertThat(bulkhead.queuedCount()).isEqualTo(1);

        IOException reason = new IOException("client went away");
        signal.cancel(reason);

        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(call.handle((v, e) -> e).join()).isInstanceOf(java.util.concurrent.CancellationException.class);
        holder.close();
        assertThat(runs).hasValue(0);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void listenersThatThrowNeverChangeTheOutcomeNorAnyState() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).listener(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                throw new IllegalStateException("listener broke");
            }

            @Override
            public void released(long executionNanos) {
                throw new IllegalStateException("listener broke");
            }
        }).build();
        AtomicInteger attempts = new AtomicInteger();
        Retry retry = Retry.builder().maxRetries(2).onRetry(event -> {
            throw new IllegalStateException("listener broke");
        }).listener(new RetryListener() {
            @Override
            public void succeeded(int attemptCount) {
                throw new IllegalStateException("listener broke");
            }
        }).build();
        Timeout timeout = Timeout.builder().timeout(Duration.ofSeconds(30)).listener(new TimeoutListener() {
            @Override
            public void finishedInTime(long elapsedNanos) {
                throw new IllegalStateException("listener broke");
            }
        }).build();
        Fallback<String> fallback = Fallback.of("fallback").onFallback(failure -> {
            throw new IllegalStateException("listener broke");
        });

        String result = Pipeline.of(retry, timeout, bulkhead).call(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw new IOException("flaky");
            }
            return "third time";
        });
        String fellBack = fallback.call(() -> {
            throw new IOException("down");
        });

        assertThat(result).isEqualTo("third time");
        assertThat(fellBack).isEqualTo("fallback");
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.tryAcquire()).isPresent();
    }

    @Test
    void aRetryInsideAPipelineAsksTheBulkheadForASlotOnEveryAttempt() {
        AtomicInteger admissions = new AtomicInteger();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).listener(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                admissions.incrementAndGet();
            }
        }).build();
        AtomicInteger attempts = new AtomicInteger();

        Integer result = Pipeline.of(Retry.builder().maxRetries(5).build(), bulkhead).call(() -> {
            if (attempts.incrementAndGet() < 4) {
                throw new IllegalStateException("again");
            }
            return attempts.get();
        });

        assertThat(result).isEqualTo(4);
        assertThat(admissions).hasValue(4);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aForeignPolicySeesTheSignalOfTheStepOutsideIt() {
        AtomicReference<CancellationSignal> seen = new AtomicReference<>();
        Policy spy = new Policy() {
            @Override
            public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                   CancellationSignal signal) throws X {
                seen.set(signal);
                return operation.get();
            }

            @Override
            public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> operation,
                                                      CancellationSignal signal) {
                seen.set(signal);
                return operation.get().toCompletableFuture();
            }
        };
        CancellationSignal signal = CancellationSignal.create();

        Pipeline.of(Timeout.of(Duration.ofSeconds(30)), spy).call(() -> 1, signal);

        assertThat(seen.get()).isNotNull().isNotSameAs(signal);
        Pipeline.of(Retry.builder().build(), spy).call(() -> 1, signal);
        assertThat(seen.get()).isSameAs(signal);
    }
}
