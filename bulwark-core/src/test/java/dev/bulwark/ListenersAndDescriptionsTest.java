package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.CapturingScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Listener lists that change at run time, how a throwing listener is logged (loudly once, then quietly), the
 * asynchronous Timeout's less travelled paths, and the descriptions operators read in logs. Found missing by
 * mutation testing.
 */
class ListenersAndDescriptionsTest {

    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger root = Logger.getLogger("dev.bulwark");
    private Level levelBefore;

    @BeforeEach
    void captureLogs() {
        levelBefore = root.getLevel();
        root.setLevel(Level.ALL);
        root.addHandler(capture);
    }

    @AfterEach
    void releaseLogs() {
        root.removeHandler(capture);
        root.setLevel(levelBefore);
    }

    /** Records which listener saw which event. */
    private static BulkheadListener recorder(String name, List<String> seen) {
        return new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                seen.add(name + ":admitted");
            }

            @Override
            public void rejected(Rejection rejection) {
                seen.add(name + ":rejected");
            }

            @Override
            public void cancelled(long waitedNanos) {
                seen.add(name + ":cancelled");
            }
        };
    }

    @Test
    void bulkheadListenersAttachAndDetachInAnyOrder() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).listener(recorder("built", seen)).build();
        Subscription a = bulkhead.addListener(recorder("a", seen));
        Subscription b = bulkhead.addListener(recorder("b", seen));
        Subscription c = bulkhead.addListener(recorder("c", seen));

        b.close();
        bulkhead.tryAcquire().orElseThrow().close();
        assertThat(seen).containsExactly("built:admitted", "a:admitted", "c:admitted");

        seen.clear();
        b.close();
        a.close();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();
        bulkhead.acquireAsync();
        queued.cancel(false);
        assertThat(seen).containsExactly("built:admitted", "c:admitted", "built:rejected", "c:rejected",
                "built:cancelled", "c:cancelled");

        seen.clear();
        c.close();
        holder.close();
        bulkhead.tryAcquire().orElseThrow().close();
        assertThat(seen).containsExactly("built:admitted");

        Bulkhead bare = Bulkhead.of(1);
        Subscription only = bare.addListener(recorder("only", seen));
        only.close();
        only.close();
        seen.clear();
        bare.tryAcquire().orElseThrow().close();
        assertThat(seen).isEmpty();
    }

    @Test
    void aThrowingBulkheadListenerIsLoggedOnceLoudlyThenQuietlyAndOthersStillHear() {
        List<String> seen = new CopyOnWriteArrayList<>();
        IllegalStateException broken = new IllegalStateException("listener broke");
        Bulkhead bulkhead = Bulkhead.builder().name("logged").maxConcurrency(1).listener(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                throw broken;
            }

            @Override
            public void rejected(Rejection rejection) {
                throw broken;
            }

            @Override
            public void released(long executionNanos) {
                throw broken;
            }
        }).listener(recorder("after", seen)).build();

        bulkhead.call(() -> 1);
        Permit holder = bulkhead.acquire();
        bulkhead.acquireAsync();
        holder.close();

        assertThat(seen).containsExactly("after:admitted", "after:admitted", "after:rejected");
        List<LogRecord> records = logged.stream().filter(r -> r.getMessage().contains("'logged'")).toList();
        assertThat(records).hasSize(5);
        assertThat(records.get(0).getLevel()).isEqualTo(Level.WARNING);
        assertThat(records.get(0).getThrown()).isSameAs(broken);
        assertThat(records.get(0).getMessage()).contains("admitted", "later failures are logged at DEBUG");
        assertThat(records.subList(1, 5)).allMatch(r -> r.getLevel().intValue() < Level.INFO.intValue());
        assertThat(records.get(1).getMessage()).contains("released").doesNotContain("later failures");
    }

    @Test
    void retryAndTimeoutListenersAttachDetachAndAreIsolated() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Retry retry = Retry.builder().name("r").maxRetries(1).build();
        RetryListener throwing = new RetryListener() {
            @Override
            public void succeeded(int attempts) {
                throw new IllegalStateException("retry listener broke");
            }
        };
        Subscription first = retry.addListener(throwing);
        Subscription second = retry.addListener(new RetryListener() {
            @Override
            public void succeeded(int attempts) {
                seen.add("second:" + attempts);
            }
        });
        Subscription third = retry.addListener(new RetryListener() {
            @Override
            public void succeeded(int attempts) {
                seen.add("third:" + attempts);
            }
        });

        assertThat(retry.call(() -> "ok")).isEqualTo("ok");
        assertThat(retry.call(() -> "again")).isEqualTo("again");
        second.close();
        second.close();
        assertThat(retry.call(() -> "ok")).isEqualTo("ok");
        first.close();
        third.close();
        assertThat(retry.call(() -> "ok")).isEqualTo("ok");

        assertThat(seen).containsExactly("second:1", "third:1", "second:1", "third:1", "third:1");
        List<LogRecord> records = logged.stream().filter(r -> r.getMessage().contains("'r'")).toList();
        assertThat(records).hasSize(3);
        assertThat(records.get(0).getLevel()).isEqualTo(Level.WARNING);
        assertThat(records.get(0).getMessage()).contains("succeeded", "later failures are logged at DEBUG");
        assertThat(records.subList(1, 3)).allMatch(r -> r.getLevel().intValue() < Level.INFO.intValue());

        List<String> timeouts = new CopyOnWriteArrayList<>();
        Timeout timeout = Timeout.builder().name("t").timeout(Duration.ofSeconds(1)).build();
        Subscription inTime = timeout.addListener(new TimeoutListener() {
            @Override
            public void finishedInTime(long elapsedNanos) {
                timeouts.add("in time");
            }
        });
        timeout.call(() -> 1);
        inTime.close();
        timeout.call(() -> 1);
        assertThat(timeouts).containsExactly("in time");
    }

    @Test
    void anAsyncTimeoutHonoursAPreCancelledSignalARefusingTimerAndACallerWhoGivesUp() {
        CapturingScheduler timers = new CapturingScheduler();
        Timeout timeout = Timeout.builder().name("t").timeout(Duration.ofSeconds(1)).scheduler(timers).build();

        CancellationSignal cancelled = CancellationSignal.create();
        cancelled.cancel(new IOException("gone"));
        CompletableFuture<String> notStarted = timeout.callAsync(() -> CompletableFuture.completedFuture("x"),
                cancelled);
        assertThat(notStarted.handle((v, e) -> e).join()).isInstanceOf(CancellationException.class)
                .hasCauseInstanceOf(IOException.class);
        assertThat(timers.size()).isZero();

        Timeout refused = Timeout.builder().timeout(Duration.ofSeconds(1)).scheduler((task, delay, unit) -> {
            throw new RejectedExecutionException("no timer");
        }).build();
        CancellationSignal outer = CancellationSignal.create();
        // The deadline is asked for before the operation starts: without a timer the call fails at once, unstarted.
        AtomicInteger started = new AtomicInteger();
        CompletableFuture<String> noTimer = refused.callAsync(() -> {
            started.incrementAndGet();
            return new CompletableFuture<>();
        }, outer);
        assertThat(noTimer.handle((v, e) -> e).join()).isInstanceOf(RejectedExecutionException.class);
        assertThat(started).hasValue(0);

        CancellationSignal[] inner = new CancellationSignal[1];
        CompletableFuture<String> stage = new CompletableFuture<>();
        Policy spy = new Policy() {
            @Override
            public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                   CancellationSignal signal) throws X {
                return operation.get();
            }

            @Override
            public <T> CompletableFuture<T> callAsync(java.util.function.Supplier<? extends
                    java.util.concurrent.CompletionStage<T>> operation, CancellationSignal signal) {
                inner[0] = signal;
                return operation.get().toCompletableFuture();
            }
        };
        CompletableFuture<String> abandoned = Pipeline.of(timeout, spy).callAsync(() -> stage, outer);
        abandoned.cancel(false);

        assertThat(inner[0].isCancelled()).as("the inner steps learn the caller gave up").isTrue();
        assertThat(stage).isCancelled();
        assertThat(timers.isCancelled(0)).as("the deadline timer").isTrue();
        outer.cancel();
        assertThat(inner[0].reason()).isPresent().get().isNotInstanceOf(TimeoutExceededException.class);
    }

    @Test
    void aThrowingCancellationListenerIsLoggedAndAReasonFlowsToDerivedSignals() {
        CancellationSignal outer = CancellationSignal.create();
        CancellationSignal[] inner = new CancellationSignal[1];
        Policy spy = new Policy() {
            @Override
            public <T, X extends Throwable> T call(ThrowingSupplier<? extends T, X> operation,
                                                   CancellationSignal signal) throws X {
                inner[0] = signal;
                outer.onCancel(() -> {
                    throw new IllegalStateException("cancellation listener broke");
                });
                outer.cancel(new IOException("caller left"));
                return operation.get();
            }

            @Override
            public <T> CompletableFuture<T> callAsync(java.util.function.Supplier<? extends
                    java.util.concurrent.CompletionStage<T>> operation, CancellationSignal signal) {
                throw new UnsupportedOperationException();
            }
        };

        Pipeline.of(Timeout.of(Duration.ofHours(1)), spy).call(() -> 1, outer);

        assertThat(inner[0].reason()).isPresent().get().isInstanceOf(IOException.class);
        assertThat(logged).anyMatch(r -> r.getLevel() == Level.WARNING
                && r.getThrown() instanceof IllegalStateException
                && r.getMessage().contains("cancellation listener threw"));
    }

    @Test
    void aFallbackDescribesWhatItActuallyHandles() {
        assertThat(Fallback.of("x").toString())
                .isEqualTo("Fallback[handles every Exception except CancellationException and InterruptedException]");
        assertThat(Fallback.of("x").handle(IOException.class, TimeoutExceededException.class).toString())
                .isEqualTo("Fallback[handles java.io.IOException, dev.bulwark.TimeoutExceededException]");
        assertThat(Fallback.of("x").handleIf(e -> true).toString())
                .isEqualTo("Fallback[handles failures matching 1 predicate]");
        assertThat(Fallback.of("x").handle(IOException.class).handleIf(e -> true).handleIf(e -> false).toString())
                .isEqualTo("Fallback[handles java.io.IOException and failures matching any of 2 predicates]");
        // Adding a callback changes nothing that is handled.
        assertThat(Fallback.of("x").handle(IOException.class).onFallback(e -> { }).toString())
                .isEqualTo("Fallback[handles java.io.IOException]");
    }

    @Test
    void descriptionsNameWhatOperatorsNeed() {
        Retry fixed = Retry.builder().name("orders").maxRetries(2).delay(Duration.ofMillis(200)).build();
        Retry backoff = Retry.builder().backoff(Duration.ofMillis(50), Duration.ofSeconds(1)).jitter(0.2).build();
        Timeout interrupting = Timeout.builder().name("slow").timeout(Duration.ofMillis(300)).interruptOnTimeout(true)
                .build();

        assertThat(fixed.toString()).isEqualTo("Retry[orders: maxRetries=2, delay=PT0.2S]");
        assertThat(backoff.toString()).contains("backoff=PT0.05S..PT1S", "jitter=0.2");
        assertThat(Retry.builder().maxRetries(0).build().toString()).contains("maxRetries=0", "delay=PT0S")
                .doesNotContain("jitter");
        assertThat(interrupting.toString()).isEqualTo("Timeout[slow: PT0.3S, interrupts]");
        assertThat(Timeout.builder().name("calm").timeout(Duration.ofSeconds(1)).build().toString())
                .isEqualTo("Timeout[calm: PT1S]");
        assertThat(Pipeline.of(fixed, interrupting).toString()).startsWith("Pipeline[").contains("orders", "slow");
        assertThat(Fallback.of("x").handle(IOException.class).toString()).contains("IOException")
                .doesNotContain("predicate");
        assertThat(CancellationSignal.none().toString()).isEqualTo("CancellationSignal[none]");
        CancellationSignal signal = CancellationSignal.create();
        assertThat(signal.toString()).isEqualTo("CancellationSignal[active]");
        signal.cancel(new IOException("gone"));
        assertThat(signal.toString()).contains("cancelled: java.io.IOException: gone");
        assertThat(new TimeoutExceededException("t", Duration.ofMillis(9_999)).getMessage())
                .isEqualTo("Timeout 't' of 9999 ms exceeded");
        assertThat(new TimeoutExceededException("t", Duration.ofSeconds(10)).getMessage())
                .isEqualTo("Timeout 't' of PT10S exceeded");
        assertThat(new TimeoutExceededException("t", Duration.ofNanos(1_500_000)).getMessage())
                .isEqualTo("Timeout 't' of PT0.0015S exceeded");
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(2).maxQueue(3).build();
        assertThat(bulkhead.toString()).isEqualTo("Bulkhead[db: executing 0 of 2, queued 0 of 3]");
        BulkheadConfig config = Bulkhead.builder().name("c").maxWait(Duration.ofSeconds(1)).onRejected(r -> { })
                .config();
        assertThat(config.toString()).contains("maxWait=PT1S", "rejectionHandler=set");
        assertThat(Bulkhead.builder().name("c").config().toString()).contains("maxWait=unbounded",
                "rejectionHandler=none");
        assertThat(config.hashCode()).isEqualTo(config.toBuilder().config().hashCode())
                .isNotEqualTo(config.toBuilder().maxQueue(9).config().hashCode());
    }

    @Test
    void aFallbackWithASignalRelaysTheResultAndIgnoresFailuresItDoesNotHandle() throws IOException {
        Fallback<String> fallback = Fallback.of("fallback").handle(IOException.class);
        CancellationSignal signal = CancellationSignal.create();

        assertThat(fallback.call(() -> "value", signal)).isEqualTo("value");
        assertThat(fallback.call(() -> {
            throw new IOException("down");
        }, signal)).isEqualTo("fallback");
        assertThat(fallback.callAsync(() -> CompletableFuture.completedFuture("async"), signal).join())
                .isEqualTo("async");
        IllegalStateException unhandled = new IllegalStateException("not mine");
        assertThat(fallback.callAsync(() -> CompletableFuture.failedFuture(unhandled), signal)
                .handle((v, e) -> e).join()).isSameAs(unhandled);
        assertThat(Fallback.of("default").callAsync(() -> CompletableFuture.failedFuture(new CancellationException()))
                .handle((v, e) -> e).join()).isInstanceOf(CancellationException.class);
    }
}
