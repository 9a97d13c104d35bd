package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 item 4: a per-key bulkhead whose per-key configuration carries an adaptive limit gives every partition
 * its own algorithm state, so each key's limit adapts to that key's latencies alone.
 */
class PartitionedAdaptiveLimitTest {

    private final FakeTicker ticker = new FakeTicker();

    /** Starts as many calls on {@code key} as its partition admits, lets {@code latency} pass, and completes them. */
    private void round(PartitionedBulkhead<String> bulkhead, String key, Duration latency) {
        int limit = bulkhead.partition(key).map(Bulkhead::maxConcurrency).orElse(10);
        List<CompletableFuture<String>> work = new ArrayList<>();
        List<CompletableFuture<String>> results = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            CompletableFuture<String> pending = new CompletableFuture<>();
            work.add(pending);
            results.add(bulkhead.callAsync(key, () -> pending));
        }
        ticker.advance(latency);
        work.forEach(pending -> pending.complete("done"));
        assertThat(results).allMatch(result -> result.isDone() && !result.isCompletedExceptionally());
    }

    @Test
    void eachPartitionAdaptsOnItsOwn() {
        BulkheadConfig perKey = Bulkhead.builder().maxConcurrency(10).maxQueue(0).ticker(ticker)
                .adaptive(AdaptiveLimit.aimd().minLimit(1).maxLimit(20).windowSamples(1)
                        .latencyThreshold(Duration.ofMillis(50)).build()).config();
        PartitionedBulkhead<String> bulkhead = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(perKey).ticker(ticker).build();

        for (int i = 0; i < 5; i++) {
            round(bulkhead, "fast", Duration.ofMillis(10));
            round(bulkhead, "slow", Duration.ofMillis(100));
        }

        // One window per round: the fast key grew by one per round, the slow key was cut by 0.9 per round.
        assertThat(bulkhead.partition("fast").orElseThrow().maxConcurrency()).isEqualTo(15);
        assertThat(bulkhead.partition("slow").orElseThrow().maxConcurrency()).isBetween(5, 6);
    }

    @Test
    void aKeysOwnConfigurationMayCarryAnotherAdaptiveLimit() {
        BulkheadConfig fixed = Bulkhead.builder().maxConcurrency(10).maxQueue(0).ticker(ticker).config();
        BulkheadConfig adaptive = fixed.toBuilder().adaptive(AdaptiveLimit.aimd().minLimit(1).maxLimit(20)
                .windowSamples(1).latencyThreshold(Duration.ofMillis(50)).build()).config();
        PartitionedBulkhead<String> bulkhead = PartitionedBulkhead.<String>builder().name("tenants")
                .defaultConfig(fixed).configFor(key -> key.startsWith("adaptive") ? adaptive : null).ticker(ticker)
                .build();

        for (int i = 0; i < 3; i++) {
            round(bulkhead, "adaptive-a", Duration.ofMillis(100));
            round(bulkhead, "plain", Duration.ofMillis(100));
        }

        assertThat(bulkhead.partition("adaptive-a").orElseThrow().maxConcurrency()).isLessThan(10);
        assertThat(bulkhead.partition("plain").orElseThrow().maxConcurrency()).isEqualTo(10);
    }
}
