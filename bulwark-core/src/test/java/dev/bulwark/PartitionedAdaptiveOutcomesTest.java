package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A key's adaptive limit (and an adaptive global one) learns from the outcomes of the calls it admitted, by every
 * path of a per-key bulkhead (docs/adaptive.md, "Per-key bulkheads"): a timeout is a drop whether the call was
 * synchronous or asynchronous, with or without a global limit.
 */
class PartitionedAdaptiveOutcomesTest {

    private static final int LIMIT = 10;

    enum Path {
        SYNC, ASYNC, SYNC_GLOBAL, ASYNC_GLOBAL, SYNC_FAIR, ASYNC_FAIR;

        PartitionedBulkhead<String> build(BulkheadConfig keyConfig, Bulkhead global) {
            PartitionedBulkhead.Builder<String> builder = PartitionedBulkhead.<String>builder()
                    .defaultConfig(keyConfig);
            if (this != SYNC && this != ASYNC) {
                builder.globalLimit(global);
            }
            if (this == SYNC_FAIR || this == ASYNC_FAIR) {
                builder.fairShares();
            }
            return builder.build();
        }

        boolean async() {
            return this == ASYNC || this == ASYNC_GLOBAL || this == ASYNC_FAIR;
        }
    }

    private static BulkheadConfig adaptive() {
        return Bulkhead.builder().maxConcurrency(LIMIT).adaptive(AdaptiveLimit.aimd().windowSamples(5).build())
                .config();
    }

    private static void timeOut(PartitionedBulkhead<String> bulkhead, Path path) {
        TimeoutExceededException timeout = new TimeoutExceededException("downstream", Duration.ofMillis(1));
        if (path.async()) {
            CompletableFuture<Object> call = bulkhead.callAsync("k", () -> CompletableFuture.failedFuture(timeout));
            assertThat(call).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                    .havingCause().isSameAs(timeout);
        } else {
            assertThatThrownBy(() -> bulkhead.call("k", () -> {
                throw timeout;
            })).isSameAs(timeout);
        }
    }

    @ParameterizedTest
    @EnumSource(Path.class)
    void timeoutsCutTheKeysAdaptiveLimitByEveryPath(Path path) {
        PartitionedBulkhead<String> bulkhead = path.build(adaptive(), Bulkhead.of(100));
        for (int i = 0; i < 20; i++) {
            timeOut(bulkhead, path);
        }
        assertThat(bulkhead.partition("k").orElseThrow().maxConcurrency()).as(path.name()).isLessThan(LIMIT);
    }

    @ParameterizedTest
    @EnumSource(value = Path.class, names = {"SYNC_GLOBAL", "ASYNC_GLOBAL", "SYNC_FAIR", "ASYNC_FAIR"})
    void timeoutsCutAnAdaptiveGlobalLimitToo(Path path) {
        Bulkhead global = Bulkhead.of(adaptive());
        PartitionedBulkhead<String> bulkhead = path.build(Bulkhead.builder().maxConcurrency(100).config(), global);
        for (int i = 0; i < 20; i++) {
            timeOut(bulkhead, path);
        }
        assertThat(global.maxConcurrency()).as(path.name()).isLessThan(LIMIT);
    }

    @Test
    void aConfigForThatThrowsAnErrorFailsTheAsyncCallsFuture() {
        AssertionError broken = new AssertionError("bad config for k");
        Function<String, BulkheadConfig> configFor = key -> {
            throw broken;
        };
        PartitionedBulkhead<String> bulkhead = PartitionedBulkhead.<String>builder().configFor(configFor).build();
        CompletableFuture<Object> call = bulkhead.callAsync("k", () -> CompletableFuture.completedFuture("ran"));
        assertThat(call).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isSameAs(broken);
        assertThat(bulkhead.partitionCount()).isZero();
    }
}
