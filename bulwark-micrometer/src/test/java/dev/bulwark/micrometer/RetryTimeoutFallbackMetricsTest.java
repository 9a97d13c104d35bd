package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Fallback;
import dev.bulwark.Rejection;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.testing.ManualTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Issue 7: the meters of retries, timeouts and fallbacks after scripted calls, in a SimpleMeterRegistry. */
class RetryTimeoutFallbackMetricsTest {

    private final ManualTime clock = new ManualTime();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BulwarkMetrics metrics = BulwarkMetrics.of(registry);

    @Test
    void retryCountsEachWayACallEndsAndEveryRetry() throws Exception {
        Retry retry = Retry.builder().name("orders").handle(IOException.class).maxRetries(2).build();
        metrics.bind(retry);

        retry.call(() -> "at once");
        AtomicInteger attempts = new AtomicInteger();
        retry.call(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw new IOException("flaky");
            }
            return "third time lucky";
        });
        assertThatThrownBy(() -> retry.call(() -> {
            throw new IOException("down");
        })).hasMessage("down");
        assertThatThrownBy(() -> retry.call(() -> {
            throw new IllegalArgumentException("bad request");
        })).hasMessage("bad request");

        assertThat(retryCalls("succeeded.without_retry")).isEqualTo(1.0);
        assertThat(retryCalls("succeeded.after_retry")).isEqualTo(1.0);
        assertThat(retryCalls("failed.retries_exhausted")).isEqualTo(1.0);
        assertThat(retryCalls("failed.not_retryable")).isEqualTo(1.0);
        assertThat(retryCalls("cancelled")).isZero();
        assertThat(registry.get("bulwark.retry.retries").tags("name", "orders").counter().count()).isEqualTo(4.0);
    }

    @Test
    void retryCountsACallCancelledDuringItsDelay() {
        Retry retry = Retry.builder().name("orders").delay(Duration.ofSeconds(1)).scheduler(clock).ticker(clock)
                .build();
        metrics.bind(retry);
        CancellationSignal signal = CancellationSignal.create();

        CompletableFuture<String> call = retry.callAsync(
                () -> CompletableFuture.failedFuture(new UncheckedIOException(new IOException("flaky"))), signal);
        signal.cancel();

        assertThat(call).isCompletedExceptionally();
        assertThat(retryCalls("cancelled")).isEqualTo(1.0);
        assertThat(registry.get("bulwark.retry.retries").tags("name", "orders").counter().count()).isEqualTo(1.0);
    }

    @Test
    void timeoutCountsCallsInTimeAndTimedOutAndTimesThoseInTime() {
        Timeout timeout = Timeout.builder().name("pricing").timeout(Duration.ofMillis(100)).scheduler(clock)
                .ticker(clock).build();
        metrics.bind(timeout);

        timeout.call(() -> {
            clock.advance(Duration.ofMillis(30));
            return "fast";
        });
        assertThatThrownBy(() -> timeout.call(() -> {
            clock.advance(Duration.ofMillis(150));
            return "slow";
        })).isInstanceOf(TimeoutExceededException.class);

        assertThat(registry.get("bulwark.timeout.calls").tags("name", "pricing", "outcome", "in_time").counter()
                .count()).isEqualTo(1.0);
        assertThat(registry.get("bulwark.timeout.calls").tags("name", "pricing", "outcome", "timed_out").counter()
                .count()).isEqualTo(1.0);
        assertThat(registry.get("bulwark.timeout.execution").tags("name", "pricing").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(30.0);
        assertThat(registry.get("bulwark.timeout.execution").timer().count()).isEqualTo(1);
    }

    @Test
    void fallbackCounterCountsByExceptionTypeAndOnlyHandledFailures() throws Exception {
        FallbackCounter counter = metrics.fallbackCounter("stock");
        Fallback<String> fallback = Fallback.of("unknown").handle(BulkheadRejectedException.class, IOException.class)
                .onFallback(counter);
        BulkheadRejectedException rejected = new BulkheadRejectedException(new Rejection("db",
                Rejection.Reason.QUEUE_FULL, 1, 0, 1, 0, Duration.ZERO));

        fallback.call(() -> "fresh");
        fallback.call(() -> {
            throw rejected;
        });
        fallback.call(() -> {
            throw rejected;
        });
        fallback.call(() -> {
            throw new IOException("down");
        });
        assertThatThrownBy(() -> fallback.call(() -> {
            throw new IllegalStateException("not handled");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(fallbacks("BulkheadRejectedException")).isEqualTo(2.0);
        assertThat(fallbacks("IOException")).isEqualTo(1.0);
        assertThat(registry.find("bulwark.fallback.used").counters()).hasSize(2);
    }

    @Test
    void fallbackCounterIsOnePerNameUntilClosedAndCountsNothingOnceClosed() {
        FallbackCounter counter = metrics.fallbackCounter("stock");
        assertThat(metrics.fallbackCounter("stock")).isSameAs(counter);
        counter.accept(new IOException("down"));

        counter.close();
        counter.accept(new IOException("down"));
        counter.accept(new IllegalStateException("late"));

        assertThat(registry.find("bulwark.fallback.used").counters()).isEmpty();
        FallbackCounter next = metrics.fallbackCounter("stock");
        assertThat(next).isNotSameAs(counter);
        next.accept(new IOException("down"));
        assertThat(fallbacks("IOException")).isEqualTo(1.0);
    }

    @Test
    void anAnonymousExceptionClassIsTaggedWithItsBinaryName() {
        FallbackCounter counter = metrics.fallbackCounter("stock");

        counter.accept(new RuntimeException("anonymous") {
            private static final long serialVersionUID = 1L;
        });

        assertThat(registry.get("bulwark.fallback.used").counter().getId().getTag("exception"))
                .startsWith(RetryTimeoutFallbackMetricsTest.class.getName() + "$");
    }

    private double retryCalls(String outcome) {
        return registry.get("bulwark.retry.calls").tags("name", "orders", "outcome", outcome).counter().count();
    }

    private double fallbacks(String exception) {
        return registry.get("bulwark.fallback.used").tags("name", "stock", "exception", exception).counter().count();
    }
}
