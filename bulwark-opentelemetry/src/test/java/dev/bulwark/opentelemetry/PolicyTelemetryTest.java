package dev.bulwark.opentelemetry;

import static dev.bulwark.opentelemetry.InstrumentNames.ERROR_TYPE;
import static dev.bulwark.opentelemetry.InstrumentNames.FALLBACK_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.FALLBACK_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_RETRIES;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_CALL_DURATION;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.TIMEOUT_OUTCOME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.bulwark.Fallback;
import dev.bulwark.Retry;
import dev.bulwark.Subscription;
import dev.bulwark.Timeout;
import dev.bulwark.TimeoutExceededException;
import dev.bulwark.testing.ManualTime;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Retry, timeout and fallback facts through a real SDK reader: exact counts and durations by outcome. */
class PolicyTelemetryTest {

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider meterProvider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final BulwarkTelemetry telemetry =
            BulwarkTelemetry.create(OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build());
    private final ManualTime time = new ManualTime();

    @AfterEach
    void close() {
        meterProvider.close();
    }

    @Test
    void countsRetryCallsByOutcomeAndTheRetriesScheduled() {
        Retry retry = Retry.builder().name("flaky").handle(IOException.class).maxRetries(2)
                .delay(Duration.ofMillis(1)).build();
        telemetry.bind(retry);

        retry.call(() -> "first time");
        assertThatThrownBy(() -> retry.call(() -> {
            throw new IOException("always");
        })).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> retry.call(() -> {
            throw new IllegalArgumentException("not retryable");
        })).isInstanceOf(IllegalArgumentException.class);

        Collected collected = Collected.from(reader);
        Attributes named = Attributes.of(RETRY_NAME, "flaky");
        assertThat(collected.sum(RETRY_CALLS, outcome(named, "succeeded_without_retry"))).contains(1L);
        assertThat(collected.sum(RETRY_CALLS, outcome(named, "failed_not_retryable"))).contains(1L);
        assertThat(collected.sum(RETRY_CALLS, outcome(named, "cancelled"))).contains(0L);
        assertThat(collected.sum(RETRY_CALLS, outcome(named, "failed_retries_exhausted"))).contains(1L);
        assertThat(collected.sum(RETRY_CALLS, outcome(named, "succeeded_after_retry"))).contains(0L);
        assertThat(collected.sum(RETRY_RETRIES, named)).contains(2L);
        assertThat(collected.require(RETRY_RETRIES).getUnit()).isEqualTo("{retry}");
    }

    @Test
    void countsARetryThatSucceededAfterRetrying() throws IOException {
        Retry retry = Retry.builder().name("again").handle(IOException.class).maxRetries(3)
                .delay(Duration.ofMillis(1)).build();
        telemetry.bind(retry);
        AtomicInteger attempts = new AtomicInteger();
        assertThat(retry.<String, IOException>call(() -> {
            if (attempts.incrementAndGet() < 3) {
                throw new IOException("transient");
            }
            return "third";
        })).isEqualTo("third");
        Collected collected = Collected.from(reader);
        Attributes named = Attributes.of(RETRY_NAME, "again");
        assertThat(collected.sum(RETRY_CALLS, outcome(named, "succeeded_after_retry"))).contains(1L);
        assertThat(collected.sum(RETRY_RETRIES, named)).contains(2L);
    }

    private static Attributes outcome(Attributes named, String outcome) {
        return named.toBuilder().put(RETRY_OUTCOME, outcome).build();
    }

    @Test
    void countsTimeoutOutcomesAndRecordsInTimeDurations() {
        Timeout timeout = Timeout.builder().name("slow").timeout(Duration.ofSeconds(1)).ticker(time).scheduler(time)
                .build();
        telemetry.bind(timeout);
        Attributes named = Attributes.of(TIMEOUT_NAME, "slow");

        CompletableFuture<String> inTime = new CompletableFuture<>();
        CompletableFuture<String> first = timeout.callAsync(() -> inTime);
        time.advance(Duration.ofMillis(300));
        inTime.complete("done");
        CompletableFuture<String> late = timeout.callAsync(CompletableFuture::new);
        time.advance(Duration.ofSeconds(1));

        assertThat(first.join()).isEqualTo("done");
        assertThat(late).isCompletedExceptionally();
        assertThatThrownBy(late::join).hasCauseInstanceOf(TimeoutExceededException.class);
        Collected collected = Collected.from(reader);
        assertThat(collected.sum(TIMEOUT_CALLS, named.toBuilder().put(TIMEOUT_OUTCOME, "in_time").build()))
                .contains(1L);
        assertThat(collected.sum(TIMEOUT_CALLS, named.toBuilder().put(TIMEOUT_OUTCOME, "timed_out").build()))
                .contains(1L);
        assertThat(collected.histogram(TIMEOUT_CALL_DURATION, named).orElseThrow().getSum())
                .isCloseTo(0.3, within(1e-9));
        assertThat(collected.require(TIMEOUT_CALL_DURATION).getUnit()).isEqualTo("s");
    }

    @Test
    void countsFallbacksByErrorTypeUntilClosed() {
        FallbackCounter counter = telemetry.fallbackCounter("stock");
        assertThat(telemetry.fallbackCounter("stock")).isSameAs(counter);
        Fallback<String> fallback = Fallback.of("unknown").onFallback(counter);

        assertThat(fallback.call(() -> {
            throw new IllegalStateException("down");
        })).isEqualTo("unknown");
        fallback.call(() -> {
            throw new IllegalStateException("down again");
        });
        fallback.call(() -> {
            throw new UncheckedIOException(new IOException("io"));
        });

        Collected collected = Collected.from(reader);
        Attributes named = Attributes.of(FALLBACK_NAME, "stock");
        assertThat(collected.sum(FALLBACK_CALLS, named.toBuilder()
                .put(ERROR_TYPE, "java.lang.IllegalStateException").build())).contains(2L);
        assertThat(collected.sum(FALLBACK_CALLS, named.toBuilder()
                .put(ERROR_TYPE, "java.io.UncheckedIOException").build())).contains(1L);

        counter.close();
        assertThat(Collected.from(reader).anyPointWith(FALLBACK_CALLS, named)).isFalse();
        assertThat(telemetry.fallbackCounter("stock")).isNotSameAs(counter);
        assertThatThrownBy(() -> telemetry.fallbackCounter(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name must not be blank");
    }

    @Test
    void bindingTwiceFailsAndClosingFreesTheName() {
        Retry retry = Retry.builder().name("once").build();
        Subscription binding = telemetry.bind(retry);
        assertThatThrownBy(() -> telemetry.bind(retry)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("retry 'once' is already bound");
        binding.close();
        telemetry.bind(retry).close();
        assertThatThrownBy(() -> BulwarkTelemetry.create(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("openTelemetry");
    }
}
