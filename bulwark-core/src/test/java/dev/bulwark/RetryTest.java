package dev.bulwark;

import static dev.bulwark.testing.Threads.awaitParked;
import static dev.bulwark.testing.Threads.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Issue 3: Retry on the sync and async paths (behaviours 3, 6, 9). */
class RetryTest {

    private final FakeTicker ticker = new FakeTicker();
    private final ManualScheduler scheduler = new ManualScheduler(ticker);

    @Test
    void retriesEveryExceptionByDefaultUpToThreeTimesThenRethrowsTheLastFailureUntouched() {
        Retry retry = Retry.builder().build();
        List<IOException> thrown = new ArrayList<>();

        IOException caught = null;
        try {
            retry.call(() -> {
                IOException failure = new IOException("attempt " + (thrown.size() + 1));
                thrown.add(failure);
                throw failure;
            });
        } catch (IOException e) {
            caught = e;
        }

        assertThat(thrown).hasSize(4);
        assertThat(caught).isSameAs(thrown.get(3));
        assertThat(caught.getSuppressed()).isEmpty();
    }

    @Test
    void errorsAreNotRetriedByDefault() {
        AtomicInteger attempts = new AtomicInteger();
        AssertionError error = new AssertionError("fatal");

        Throwable thrown = catchThrowable(() -> Retry.builder().build().run(() -> {
            attempts.incrementAndGet();
            throw error;
        }));

        assertThat(thrown).isSameAs(error);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void anInterruptedExceptionIsNotRetriedByDefaultButIsWhenListed() {
        AtomicInteger attempts = new AtomicInteger();
        InterruptedException interrupt = new InterruptedException("shutdownNow");
        Retry retry = Retry.builder().delay(Duration.ofSeconds(30)).build();

        Throwable thrown = catchThrowable(() -> retry.run(() -> {
            attempts.incrementAndGet();
            throw interrupt;
        }));

        assertThat(thrown).as("rethrown at once, untouched, with no 30 s delay").isSameAs(interrupt);
        assertThat(attempts).hasValue(1);

        AtomicInteger listed = new AtomicInteger();
        Throwable again = catchThrowable(() -> Retry.builder().handle(InterruptedException.class).build().run(() -> {
            listed.incrementAndGet();
            throw interrupt;
        }));
        assertThat(again).isSameAs(interrupt);
        assertThat(listed).as("listed, it is retried like any handled failure").hasValue(4);
    }

    @Test
    void aFailureItDoesNotHandleIsRethrownAtOnce() {
        Retry retry = Retry.builder().handle(BulkheadRejectedException.class).build();
        AtomicInteger attempts = new AtomicInteger();
        IllegalStateException failure = new IllegalStateException("not handled");

        assertThat(catchThrowable(() -> retry.run(() -> {
            attempts.incrementAndGet();
            throw failure;
        }))).isSameAs(failure);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void handleIfSelectsFailuresAndAThrowingPredicateCountsAsNo() {
        AtomicInteger attempts = new AtomicInteger();
        Retry retry = Retry.builder().handleIf(e -> e.getMessage().equals("transient")).handleIf(e -> {
            throw new IllegalStateException("predicate broke");
        }).maxRetries(5).build();

        Integer result = retry.call(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw new IllegalStateException("transient");
            }
            return attempts.get();
        });
        assertThat(result).isEqualTo(3);

        attempts.set(0);
        assertThat(catchThrowable(() -> retry.run(() -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("permanent");
        }))).hasMessage("permanent");
        assertThat(attempts).hasValue(1);
    }

    @Test
    void aHandleIfPredicateThatThrowsAnErrorCountsAsNoOnBothPaths() {
        Retry retry = Retry.builder().handleIf(e -> {
            throw new AssertionError("predicate broke");
        }).build();
        IOException own = new IOException("own");
        AtomicInteger attempts = new AtomicInteger();

        assertThat(catchThrowable(() -> retry.run(() -> {
            attempts.incrementAndGet();
            throw own;
        }))).isSameAs(own);
        assertThat(attempts).hasValue(1);

        // The first attempt's stage has already failed, so the retry decides before callAsync returns.
        CompletableFuture<String> call = retry.callAsync(() -> CompletableFuture.failedFuture(own));
        assertThat(call).isCompletedExceptionally();
        assertThat(call.handle((value, failure) -> failure).join()).isSameAs(own);
    }

    @Test
    void aCancellationExceptionIsNeverRetried() {
        AtomicInteger attempts = new AtomicInteger();
        Retry retry = Retry.builder().handle(RuntimeException.class).build();

        assertThat(catchThrowable(() -> retry.run(() -> {
            attempts.incrementAndGet();
            throw new CancellationException("gone");
        }))).isInstanceOf(CancellationException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void cancellingTheSignalDuringASyncDelayEndsTheCallAtOnce() throws Exception {
        Retry retry = Retry.builder().delay(Duration.ofHours(1)).build();
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<Thread> caller = new AtomicReference<>();
        FutureTask<Throwable> call = start("caller", () -> {
            caller.set(Thread.currentThread());
            return catchThrowable(() -> retry.run(() -> {
                attempts.incrementAndGet();
                throw new IOException("fails");
            }, signal));
        });
        awaitParked(waitFor(caller));
        IOException reason = new IOException("user left");

        signal.cancel(reason);

        assertThat(call.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class).hasCause(reason);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void anInterruptedThreadStopsRetryingAndKeepsItsInterruptStatus() throws Exception {
        Retry retry = Retry.builder().delay(Duration.ofHours(1)).build();
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<Thread> caller = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        FutureTask<Throwable> call = start("caller", () -> {
            caller.set(Thread.currentThread());
            Throwable thrown = catchThrowable(() -> retry.run(() -> {
                attempts.incrementAndGet();
                throw new IOException("fails");
            }));
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            return thrown;
        });
        awaitParked(waitFor(caller));

        caller.get().interrupt();

        assertThat(call.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(interruptedAfter.get()).isTrue();
        assertThat(attempts).hasValue(1);
    }

    @Test
    void syncDelaysFollowTheConfiguredBackoff() throws Exception {
        List<Duration> delays = new CopyOnWriteArrayList<>();
        Retry retry = Retry.builder().maxRetries(5).backoff(Duration.ofMillis(100), Duration.ofMillis(350))
                .ticker(ticker).onRetry(event -> delays.add(event.nextDelay())).build();
        AtomicReference<Thread> caller = new AtomicReference<>();
        AtomicInteger attempts = new AtomicInteger();
        FutureTask<Integer> call = start("caller", () -> {
            caller.set(Thread.currentThread());
            return retry.call(() -> {
                if (attempts.incrementAndGet() < 6) {
                    throw new IOException("again");
                }
                return attempts.get();
            });
        });
        Thread thread = waitFor(caller);
        for (int i = 1; i <= 5; i++) {
            int expectedDelays = i;
            org.awaitility.Awaitility.await().until(() -> delays.size() == expectedDelays);
            awaitParked(thread);
            ticker.advance(delays.get(i - 1));
            java.util.concurrent.locks.LockSupport.unpark(thread);
        }

        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(6);
        assertThat(delays).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(350),
                Duration.ofMillis(350), Duration.ofMillis(350));
    }

    @Test
    void jitterKeepsDelaysWithinTheFraction() throws Exception {
        List<Duration> delays = new ArrayList<>();
        Retry retry = Retry.builder().maxRetries(200).delay(Duration.ofNanos(1000)).jitter(0.5)
                .onRetry(event -> delays.add(event.nextDelay())).build();
        AtomicInteger attempts = new AtomicInteger();

        retry.call(() -> {
            if (attempts.incrementAndGet() <= 200) {
                throw new IOException("again");
            }
            return 1;
        });

        assertThat(delays).hasSize(200).allMatch(d -> d.toNanos() >= 500 && d.toNanos() <= 1500);
        assertThat(delays.stream().distinct().count()).isGreaterThan(1);
    }

    @Test
    void backoffGrowsByAnyMultiplierUpToItsMax() throws Exception {
        List<Duration> delays = new ArrayList<>();
        Retry retry = Retry.builder().maxRetries(6).backoff(Duration.ofNanos(100), 1.5, Duration.ofNanos(400))
                .onRetry(event -> delays.add(event.nextDelay())).build();
        AtomicInteger attempts = new AtomicInteger();

        assertThatThrownBy(() -> retry.call(() -> {
            attempts.incrementAndGet();
            throw new IOException("again");
        })).isInstanceOf(IOException.class);

        assertThat(attempts).hasValue(7);
        assertThat(delays).extracting(Duration::toNanos).containsExactly(100L, 150L, 225L, 337L, 400L, 400L);
        List<Duration> constant = new ArrayList<>();
        Retry fixed = Retry.builder().maxRetries(3).backoff(Duration.ofNanos(100), 1.0, Duration.ofNanos(400))
                .onRetry(event -> constant.add(event.nextDelay())).build();
        assertThatThrownBy(() -> fixed.call(() -> {
            throw new IOException("again");
        })).isInstanceOf(IOException.class);
        assertThat(constant).extracting(Duration::toNanos).containsExactly(100L, 100L, 100L);
    }

    @Test
    void anAbsoluteJitterGrowsWithTheDelayAndStaysBetweenTheFirstDelayAndMax() throws Exception {
        List<Long> delays = new ArrayList<>();
        // Delays 1000, 2000, 4000, then 5000: k = 1, 2, 4, 5; the jitter is 300 ns per k.
        Retry retry = Retry.builder().maxRetries(4).backoff(Duration.ofNanos(1000), 2.0, Duration.ofNanos(5000))
                .jitter(Duration.ofNanos(300)).onRetry(event -> delays.add(event.nextDelay().toNanos())).build();
        List<List<Long>> runs = new ArrayList<>();
        for (int run = 0; run < 200; run++) {
            delays.clear();
            assertThatThrownBy(() -> retry.call(() -> {
                throw new IOException("again");
            })).isInstanceOf(IOException.class);
            runs.add(List.copyOf(delays));
        }

        assertThat(runs).allSatisfy(run -> {
            assertThat(run.get(0)).isBetween(1000L, 1300L);
            assertThat(run.get(1)).isBetween(1400L, 2600L);
            assertThat(run.get(2)).isBetween(2800L, 5000L);
            assertThat(run.get(3)).isBetween(3500L, 5000L);
        });
        // Spread over the range, not stuck at one end.
        assertThat(runs).anyMatch(run -> run.get(1) < 1700L).anyMatch(run -> run.get(1) > 2300L);
        List<Long> fixedDelays = new ArrayList<>();
        Retry fixed = Retry.builder().maxRetries(100).delay(Duration.ofNanos(1000)).jitter(Duration.ofNanos(500))
                .onRetry(event -> fixedDelays.add(event.nextDelay().toNanos())).build();
        assertThatThrownBy(() -> fixed.call(() -> {
            throw new IOException("again");
        })).isInstanceOf(IOException.class);
        assertThat(fixedDelays).hasSize(100).allMatch(nanos -> nanos >= 1000L && nanos <= 1500L)
                .anyMatch(nanos -> nanos > 1250L);
    }

    @Test
    void theNewBackoffAndJitterOptionsCheckTheirArguments() {
        assertThatThrownBy(() -> Retry.builder().backoff(Duration.ofMillis(1), 0.5, Duration.ofMillis(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("multiplier must be at least 1 and finite but was 0.5");
        assertThatThrownBy(() -> Retry.builder().backoff(Duration.ofMillis(1), Double.NaN, Duration.ofMillis(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiplier");
        assertThatThrownBy(() -> Retry.builder().jitter(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("amount must not be negative");
        assertThatThrownBy(() -> Retry.builder().jitter(0.2).jitter(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot both be set");
        assertThatThrownBy(() -> Retry.builder().jitter(Duration.ofMillis(1)).jitter(0.2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot both be set");
        assertThatThrownBy(() -> Retry.builder().jitter((Duration) null)).isInstanceOf(NullPointerException.class)
                .hasMessage("amount");
    }

    @Test
    void jitterNeverTakesABackoffDelayAboveItsMax() throws Exception {
        List<RetryEvent> events = new ArrayList<>();
        Retry retry = Retry.builder().maxRetries(400).backoff(Duration.ofNanos(250), Duration.ofNanos(1000))
                .jitter(0.5).onRetry(events::add).build();
        AtomicInteger attempts = new AtomicInteger();

        retry.call(() -> {
            if (attempts.incrementAndGet() <= 400) {
                throw new IOException("again");
            }
            return 1;
        });

        assertThat(events).hasSize(400);
        assertThat(events.get(0).nextDelay().toNanos()).isBetween(125L, 375L);
        assertThat(events.get(1).nextDelay().toNanos()).isBetween(250L, 750L);
        List<Long> capped = events.subList(2, 400).stream().map(e -> e.nextDelay().toNanos()).toList();
        // The cap applies after the jitter: never above max, and spread evenly below it rather than bunched at it
        // (a jitter above max is folded back below it): about 0.2 % of the draws land on max itself.
        assertThat(capped).allMatch(nanos -> nanos >= 500 && nanos <= 1000);
        assertThat(capped).anyMatch(nanos -> nanos < 600).anyMatch(nanos -> nanos > 900);
        assertThat(capped.stream().filter(nanos -> nanos == 1000L).count()).isLessThan(capped.size() / 20);
    }

    @Test
    void asyncRetrySchedulesEachAttemptAfterItsDelayWithoutAThread() {
        Retry retry = Retry.builder().delay(Duration.ofSeconds(1)).scheduler(scheduler).build();
        AtomicInteger attempts = new AtomicInteger();

        CompletableFuture<Integer> result = retry.callAsync(() -> attempts.incrementAndGet() < 3
                ? CompletableFuture.failedFuture(new IOException("again")) : CompletableFuture.completedFuture(42));

        assertThat(attempts).hasValue(1);
        assertThat(result).isNotDone();
        scheduler.advance(Duration.ofMillis(999));
        assertThat(attempts).hasValue(1);
        scheduler.advance(Duration.ofMillis(1));
        assertThat(attempts).hasValue(2);
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(result).isCompletedWithValue(42);
        assertThat(attempts).hasValue(3);
    }

    @Test
    void asyncRetryGivesUpWithTheLastFailureUntouched() {
        Retry retry = Retry.builder().maxRetries(2).build();
        List<IOException> failures = new ArrayList<>();

        CompletableFuture<Integer> result = retry.callAsync(() -> {
            IOException failure = new IOException("attempt " + failures.size());
            failures.add(failure);
            return CompletableFuture.failedFuture(failure);
        });

        assertThat(failures).hasSize(3);
        assertThat(result.handle((v, e) -> e).join()).isSameAs(failures.get(2));
    }

    @Test
    void asyncRetryWithoutDelayOfManyImmediateFailuresDoesNotRecurse() {
        Retry retry = Retry.builder().maxRetries(100_000).build();
        AtomicInteger attempts = new AtomicInteger();

        CompletableFuture<Integer> result = retry.callAsync(() -> attempts.incrementAndGet() <= 100_000
                ? CompletableFuture.failedFuture(new IOException("again")) : CompletableFuture.completedFuture(1));

        assertThat(result).isCompletedWithValue(1);
        assertThat(attempts).hasValue(100_001);
    }

    @Test
    void cancellingTheSignalDuringAnAsyncDelayCompletesWithCancellation() {
        Retry retry = Retry.builder().delay(Duration.ofSeconds(1)).scheduler(scheduler).build();
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<Integer> result = retry.callAsync(() -> {
            attempts.incrementAndGet();
            return CompletableFuture.failedFuture(new IOException("again"));
        }, signal);

        signal.cancel();

        assertThat(result.handle((v, e) -> e).join()).isInstanceOf(CancellationException.class);
        assertThat(scheduler.pendingTasks()).isZero();
        scheduler.advance(Duration.ofSeconds(5));
        assertThat(attempts).hasValue(1);
    }

    @Test
    void cancellingTheReturnedFutureStopsFurtherAttempts() {
        Retry retry = Retry.builder().delay(Duration.ofSeconds(1)).scheduler(scheduler).build();
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<Integer> result = retry.callAsync(() -> {
            attempts.incrementAndGet();
            return CompletableFuture.failedFuture(new IOException("again"));
        });

        result.cancel(false);
        scheduler.advance(Duration.ofSeconds(5));

        assertThat(attempts).hasValue(1);
        assertThat(scheduler.pendingTasks()).isZero();
    }

    @Test
    void tenThousandAsyncRetriesInTheirDelayHoldNoThreads() {
        Retry retry = Retry.builder().delay(Duration.ofHours(1)).build();
        Scheduler.shared().schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
        int threadsBefore = Thread.getAllStackTraces().size();
        CancellationSignal signal = CancellationSignal.create();
        List<CompletableFuture<Integer>> calls = new ArrayList<>();

        for (int i = 0; i < 10_000; i++) {
            calls.add(retry.callAsync(() -> CompletableFuture.failedFuture(new IOException("later")), signal));
        }

        assertThat(Thread.getAllStackTraces().size()).isLessThanOrEqualTo(threadsBefore);
        assertThat(calls).noneMatch(CompletableFuture::isDone);
        signal.cancel();
        assertThat(calls).allMatch(CompletableFuture::isCompletedExceptionally);
    }

    @Test
    void badConfigurationFailsFastNamingTheParameter() {
        assertThatThrownBy(() -> Retry.builder().maxRetries(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxRetries must not be negative but was -1");
        assertThatThrownBy(() -> Retry.builder().delay(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay");
        assertThatThrownBy(() -> Retry.builder().delay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay");
        assertThatThrownBy(() -> Retry.builder().backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initial");
        assertThatThrownBy(() -> Retry.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max");
        assertThatThrownBy(() -> Retry.builder().jitter(1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jitter must be between 0 and 1 but was 1.5");
        assertThatThrownBy(() -> Retry.builder().jitter(-0.1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jitter");
        assertThatThrownBy(() -> Retry.builder().jitter(Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jitter");
        assertThatThrownBy(() -> Retry.builder().delay(Duration.ofSeconds(1))
                .backoff(Duration.ofSeconds(1), Duration.ofSeconds(2))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay and backoff");
        assertThatThrownBy(() -> Retry.builder().backoff(Duration.ofSeconds(1), Duration.ofSeconds(2))
                .delay(Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay and backoff");
        assertThatThrownBy(() -> Retry.builder().handle()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Retry.builder().handle((Class<? extends Throwable>) null))
                .isInstanceOf(NullPointerException.class).hasMessage("types[0]");
        assertThatThrownBy(() -> Retry.builder().handleIf(null)).hasMessage("predicate");
        assertThatThrownBy(() -> Retry.builder().onRetry(null)).hasMessage("consumer");
        assertThatThrownBy(() -> Retry.builder().build().call(null)).hasMessage("operation");
    }

    private static Thread waitFor(AtomicReference<Thread> holder) {
        org.awaitility.Awaitility.await().until(() -> holder.get() != null);
        return holder.get();
    }
}
