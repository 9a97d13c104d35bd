package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code RedisBulkhead} as the fleet-wide {@code globalLimit} of a {@link PartitionedBulkhead}: its adaptive
 * limit classifies the partitioned calls' failures by its own {@code dropWhen}, exactly as through its own
 * {@code call}, on the blocking, asynchronous and fair-share paths.
 */
class RedisGlobalLimitOutcomesTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    /** A failure only this test's drop predicate knows as overload: the default one would ignore it. */
    static final class Overloaded extends RuntimeException {
        Overloaded() {
            super("overloaded", null, false, false);
        }
    }

    private RedisBulkhead adaptiveGlobal(TestInfo test) {
        return redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName()).maxConcurrency(10)
                .adaptive(AdaptiveLimit.aimd().minLimit(1).maxLimit(20).windowSamples(1)
                        .dropWhen(Overloaded.class::isInstance).build())
                .build());
    }

    private static PartitionedBulkhead<String> perKey(Bulkhead global, boolean fairShares) {
        PartitionedBulkhead.Builder<String> builder = PartitionedBulkhead.<String>builder().name("keys")
                .defaultConfig(Bulkhead.builder().maxConcurrency(5).config()).globalLimit(global);
        if (fairShares) {
            builder.fairShares(key -> 1);
        }
        return builder.build();
    }

    @Test
    void aBlockingCallsDropByTheGlobalLimitsOwnPredicateCutsIt(TestInfo test) {
        RedisBulkhead global = adaptiveGlobal(test);
        try (PartitionedBulkhead<String> keys = perKey(global, false)) {
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> keys.call("k", () -> {
                    throw new Overloaded();
                })).isInstanceOf(Overloaded.class);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> global.maxConcurrency() < 10);
        }
    }

    @Test
    void anAsynchronousCallsDropCutsItToo(TestInfo test) {
        RedisBulkhead global = adaptiveGlobal(test);
        try (PartitionedBulkhead<String> keys = perKey(global, false)) {
            for (int i = 0; i < 5; i++) {
                CompletableFuture<String> call = keys.callAsync("k",
                        () -> CompletableFuture.failedFuture(new Overloaded()));
                assertThatThrownBy(call::get).isInstanceOf(ExecutionException.class).cause()
                        .isInstanceOf(Overloaded.class);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> global.maxConcurrency() < 10);
        }
    }

    @Test
    void aFairShareCallsDropCutsItToo(TestInfo test) {
        RedisBulkhead global = adaptiveGlobal(test);
        try (PartitionedBulkhead<String> keys = perKey(global, true)) {
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> keys.call("k", () -> {
                    throw new Overloaded();
                })).isInstanceOf(Overloaded.class);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> global.maxConcurrency() < 10);
        }
    }

    @Test
    void aFailureItsPredicateDoesNotKnowLeavesItAlone(TestInfo test) {
        RedisBulkhead global = adaptiveGlobal(test);
        try (PartitionedBulkhead<String> keys = perKey(global, false)) {
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> keys.call("k", () -> {
                    throw new IllegalStateException("a bug, not overload");
                })).isInstanceOf(IllegalStateException.class);
            }
            // Control: the calls above are ignored, and one success is a success (AIMD may only grow).
            assertThat(keys.call("k", () -> "ok")).isEqualTo("ok");
            assertThat(global.maxConcurrency()).isGreaterThanOrEqualTo(10);
        }
    }
}
