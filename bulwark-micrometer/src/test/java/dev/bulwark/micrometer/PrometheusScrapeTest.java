package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.Fallback;
import dev.bulwark.Permit;
import dev.bulwark.Retry;
import dev.bulwark.Timeout;
import dev.bulwark.testing.ManualTime;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 7: a Prometheus registry renders the meters idiomatically: counters end in {@code _total}, timers are in
 * seconds, gauges carry no suffix, and every series has the expected labels.
 */
class PrometheusScrapeTest {

    private final ManualTime clock = new ManualTime();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final BulwarkMetrics metrics = BulwarkMetrics.of(registry);

    @Test
    void scrapeContainsEveryBulkheadSeries() {
        Bulkhead bulkhead = Bulkhead.builder().name("inventory-db").maxConcurrency(2).maxQueue(3)
                .maxWait(Duration.ofMillis(200)).ticker(clock).scheduler(clock).build();
        metrics.bind(bulkhead);
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();
        CompletableFuture<Permit> waiting = bulkhead.acquireAsync();
        clock.advance(Duration.ofMillis(250));
        assertThat(waiting).isCompletedExceptionally();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();

        String scrape = registry.scrape();

        assertThat(scrape).contains(
                "# TYPE bulwark_bulkhead_executing gauge",
                "bulwark_bulkhead_executing{name=\"inventory-db\"} 2",
                "bulwark_bulkhead_queued{name=\"inventory-db\"} 1",
                "bulwark_bulkhead_max_concurrency{name=\"inventory-db\"} 2",
                "bulwark_bulkhead_max_queue{name=\"inventory-db\"} 3",
                "# TYPE bulwark_bulkhead_calls_total counter",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"admitted\"} 2",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"rejected.wait_timeout\"} 1",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"rejected.queue_full\"} 0",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"cancelled\"} 0",
                "# TYPE bulwark_bulkhead_wait_seconds summary",
                "bulwark_bulkhead_wait_seconds_count{name=\"inventory-db\",outcome=\"rejected.wait_timeout\"} 1",
                "bulwark_bulkhead_wait_seconds_sum{name=\"inventory-db\",outcome=\"rejected.wait_timeout\"} 0.2",
                "# TYPE bulwark_bulkhead_wait_max_seconds gauge",
                "bulwark_bulkhead_wait_max_seconds{name=\"inventory-db\",outcome=\"rejected.wait_timeout\"} 0.25",
                "# TYPE bulwark_bulkhead_execution_max_seconds gauge",
                "bulwark_bulkhead_execution_percentile_seconds{name=\"inventory-db\",phi=\"0.99\"} 0",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"rejected.evicted\"} 0",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"rejected.unavailable\"} 0",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"rejected.partition_limit\"} 0",
                "# TYPE bulwark_bulkhead_execution_seconds summary",
                "bulwark_bulkhead_execution_seconds_count{name=\"inventory-db\"} 0");

        first.close();
        second.close();
        queued.join().close();
        assertThat(registry.scrape()).contains(
                "bulwark_bulkhead_execution_seconds_count{name=\"inventory-db\"} 3",
                "bulwark_bulkhead_calls_total{name=\"inventory-db\",outcome=\"admitted\"} 3",
                "bulwark_bulkhead_executing{name=\"inventory-db\"} 0");
    }

    @Test
    void scrapeContainsRetryTimeoutAndFallbackSeries() {
        Retry retry = Retry.builder().name("orders").build();
        Timeout timeout = Timeout.builder().name("pricing").timeout(Duration.ofSeconds(5)).build();
        metrics.bind(retry);
        metrics.bind(timeout);
        Fallback<String> fallback = Fallback.of("cached").onFallback(metrics.fallbackCounter("stock"));

        retry.call(() -> "ok");
        timeout.call(() -> "ok");
        fallback.call(() -> {
            throw new IllegalStateException("down");
        });

        assertThat(registry.scrape()).contains(
                "bulwark_retry_calls_total{name=\"orders\",outcome=\"succeeded.without_retry\"} 1",
                "bulwark_retry_calls_total{name=\"orders\",outcome=\"failed.retries_exhausted\"} 0",
                "bulwark_retry_retries_total{name=\"orders\"} 0",
                "bulwark_timeout_calls_total{name=\"pricing\",outcome=\"in_time\"} 1",
                "bulwark_timeout_calls_total{name=\"pricing\",outcome=\"timed_out\"} 0",
                "bulwark_timeout_execution_seconds_count{name=\"pricing\"} 1",
                "bulwark_fallback_used_total{exception=\"IllegalStateException\",name=\"stock\"} 1");
    }
}
