package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.GatedKey;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 19: the partition count equals the number of live partitions whenever the bulkhead is quiet, whatever
 * failed before. {@link PartitionedBulkheadRaceTest} covers what raced.
 */
class PartitionedBulkheadAccountingTest {

    private final FakeTicker ticker = new FakeTicker();

    static void assertCountMatchesLivePartitions(PartitionedBulkhead<?> partitioned) {
        assertThat(partitioned.partitionCount()).as("partitionCount() of %s against its partitions %s",
                partitioned, partitioned.partitions().keySet()).isEqualTo(partitioned.partitions().size());
    }

    @Test
    void aFailingConfigForUsesNoPartitionPlace() {
        IllegalStateException broken = new IllegalStateException("no configuration for bad");
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().maxPartitions(1)
                .configFor(key -> {
                    if (key.equals("bad")) {
                        throw broken;
                    }
                    return null;
                }).build();

        assertThat(catchThrowable(() -> partitioned.call("bad", () -> "never"))).isSameAs(broken);
        assertThat(partitioned.partitionCount()).isZero();
        assertThat(partitioned.partition("bad")).isEmpty();
        assertThat(partitioned.call("good", () -> "served")).isEqualTo("served");
        assertThat(partitioned.partitionCount()).isOne();
        assertCountMatchesLivePartitions(partitioned);
    }

    @Test
    void aFailingConfigForFailsTheAsyncFutureWithItsOwnExceptionAndUsesNoPlace() {
        IllegalStateException broken = new IllegalStateException("no configuration");
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().maxPartitions(1)
                .configFor(key -> {
                    throw broken;
                }).build();

        CompletableFuture<String> call = partitioned.callAsync("bad", () -> CompletableFuture.completedFuture("x"));

        assertThat(call.handle((value, failure) -> failure).join()).isSameAs(broken);
        assertThat(partitioned.partitionCount()).isZero();
    }

    @Test
    void aNewKeyRefusedAtTheLimitDoesNotRunConfigFor() {
        List<String> configured = new ArrayList<>();
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().maxPartitions(1)
                .evictIdleWhenFull(false).configFor(key -> {
                    configured.add(key);
                    return null;
                }).build();
        partitioned.call("a", () -> 1);

        assertThat(catchThrowable(() -> partitioned.call("b", () -> 2)))
                .isInstanceOfSatisfying(BulkheadRejectedException.class, e ->
                        assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.PARTITION_LIMIT));
        assertThat(configured).containsExactly("a");
    }

    /** Every {@code hashCode} call the creation of a partition makes, made to throw in turn. */
    @Test
    void aKeyWhoseHashCodeThrowsLeavesNoPlaceTaken() {
        int failuresSeen = 0;
        for (int skip = 0; ; skip++) {
            PartitionedBulkhead<GatedKey> partitioned = PartitionedBulkhead.<GatedKey>builder().maxPartitions(1)
                    .build();
            GatedKey key = new GatedKey("k");
            key.failOn(Thread.currentThread(), skip);
            Throwable failure = catchThrowable(() -> partitioned.call(key, () -> 1));
            if (!key.used()) {
                assertThat(failure).isNull();
                break; // the call made fewer hashCode calls than this: every one has been tried
            }
            failuresSeen++;
            assertThat(failure).isInstanceOf(GatedKey.KeyFailure.class);
            assertCountMatchesLivePartitions(partitioned);
            GatedKey other = new GatedKey("other");
            assertThat(partitioned.partitionCount() == 1 || partitioned.call(other, () -> 2) == 2).isTrue();
            assertCountMatchesLivePartitions(partitioned);
        }
        assertThat(failuresSeen).as("hashCode calls tried").isPositive();
    }

    @ParameterizedTest
    @ValueSource(strings = {"FOREVER", "200_YEARS", "MAX_NANOS", "JUST_OVER_2^62_NANOS"})
    void aVeryLongIdleTimeoutNeverEvicts(String which) {
        Duration idleTimeout = switch (which) {
            case "FOREVER" -> ChronoUnit.FOREVER.getDuration();
            case "200_YEARS" -> Duration.ofDays(365L * 200);
            case "MAX_NANOS" -> Duration.ofNanos(Long.MAX_VALUE);
            default -> Duration.ofNanos((1L << 62) + 1);
        };
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().ticker(ticker)
                .idleTimeout(idleTimeout).maxPartitions(1).evictIdleWhenFull(false).build();
        partitioned.call("a", () -> 1);
        ticker.advance(Duration.ofDays(365L * 100));

        assertThat(catchThrowable(() -> partitioned.call("b", () -> 2)))
                .isInstanceOfSatisfying(BulkheadRejectedException.class, e ->
                        assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.PARTITION_LIMIT));
        for (int i = 0; i < 200; i++) {
            partitioned.call("a", () -> 1); // enough calls for any periodic sweep to have run
            ticker.advance(Duration.ofDays(365L));
        }
        assertThat(partitioned.partitions()).containsOnlyKeys("a");
    }

    @Test
    void theLongestMeaningfulIdleTimeoutStillEvictsOnceElapsed() {
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().ticker(ticker)
                .idleTimeout(Duration.ofNanos(1L << 62)).maxPartitions(1).evictIdleWhenFull(false).build();
        partitioned.call("a", () -> 1);
        ticker.advance(Duration.ofNanos((1L << 62) - 1));
        assertThat(catchThrowable(() -> partitioned.call("b", () -> 2))).isInstanceOf(BulkheadRejectedException.class);

        ticker.advance(Duration.ofNanos(1));
        assertThat(partitioned.call("b", () -> 2)).isEqualTo(2);
        assertThat(partitioned.partitions()).containsOnlyKeys("b");
    }

    @Test
    void aShortIdleTimeoutEvictsExactlyWhenElapsed() {
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().ticker(ticker)
                .idleTimeout(Duration.ofSeconds(10)).maxPartitions(1).evictIdleWhenFull(false).build();
        partitioned.call("a", () -> 1);
        ticker.advance(Duration.ofSeconds(10).minusNanos(1));
        assertThat(catchThrowable(() -> partitioned.call("b", () -> 2))).isInstanceOf(BulkheadRejectedException.class);
        ticker.advance(Duration.ofNanos(1));
        assertThat(partitioned.call("b", () -> 2)).isEqualTo(2);
        assertCountMatchesLivePartitions(partitioned);
    }

    @Test
    void idleTimeoutsAreSweptByLaterCallsWithoutANewKey() {
        PartitionedBulkhead<String> partitioned = PartitionedBulkhead.<String>builder().ticker(ticker)
                .idleTimeout(Duration.ofSeconds(10)).build();
        partitioned.call("a", () -> 1);
        partitioned.call("b", () -> 1);
        ticker.advance(Duration.ofSeconds(11));

        partitioned.call("b", () -> 1); // leaves past the sweep time: the next call sweeps
        partitioned.call("b", () -> 1);

        assertThat(partitioned.partitions()).containsOnlyKeys("b");
        assertCountMatchesLivePartitions(partitioned);
    }
}
