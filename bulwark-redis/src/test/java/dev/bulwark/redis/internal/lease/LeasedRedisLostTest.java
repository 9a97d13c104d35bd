package dev.bulwark.redis.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Permit;
import dev.bulwark.redis.FailureMode;
import dev.bulwark.redis.LeasedEngines;
import dev.bulwark.redis.RedisBulkhead;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis stops answering under the leased mode: an instance admits within its block until its own lease ends, then
 * falls to its failure mode's floor, and takes a grant again once Redis answers.
 */
class LeasedRedisLostTest {

    private static final Duration PERIOD = Duration.ofMillis(300);

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    private RedisBulkhead instance(int limit, FailureMode mode) {
        return redis.track(RedisBulkhead.builder(redis.newClient(), "lost").maxConcurrency(limit).maxQueue(10)
                .commandTimeout(Duration.ofMillis(200)).failureMode(mode).leased(PERIOD).build());
    }

    private static LeasedBulkhead engine(RedisBulkhead bulkhead) {
        return (LeasedBulkhead) LeasedEngines.engine(bulkhead);
    }

    @Test
    void failingClosedItAdmitsUntilItsLeaseEndsThenNothingNewAndQueuedCallsRunOnceRedisAnswers() throws Exception {
        RedisBulkhead bulkhead = instance(4, FailureMode.FAIL_CLOSED);
        LeasedBulkhead engine = engine(bulkhead);
        Permit running = bulkhead.acquire();
        assertThat(engine.localBlock().limit()).isEqualTo(4);

        redis.server().pause();
        // Its lease (0.9 of three periods from its last renewal's send) still runs: it admits locally.
        assertThat(engine.renewer().leased()).isTrue();
        Optional<Permit> whileLeased = bulkhead.tryAcquire();
        assertThat(whileLeased).isPresent();
        whileLeased.get().close();

        await().atMost(Duration.ofSeconds(5)).until(() -> !engine.renewer().leased());
        assertThat(engine.localBlock().limit()).isZero();
        assertThat(bulkhead.tryAcquire()).isEmpty();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();
        assertThat(bulkhead.localQueuedCount()).isEqualTo(1);
        // The call admitted before the lease ended runs on: a bulkhead never interrupts one.
        assertThat(bulkhead.localExecutingCount()).isEqualTo(1);

        redis.server().resume();
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.renewer().leased());
        queued.get().close();
        running.close();
    }

    @Test
    void failingOpenItFallsToTheLimitDividedByTheInstancesItLastSaw() {
        RedisBulkhead first = instance(5, FailureMode.FAIL_OPEN);
        RedisBulkhead second = instance(5, FailureMode.FAIL_OPEN);
        // Idle: the limit is split as headroom, 2 and 3 (both renewed since the second joined).
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(List.of(
                engine(first).localBlock().limit(), engine(second).localBlock().limit())).containsAnyOf(2, 3)
                .doesNotContain(0, 1, 4, 5));

        redis.server().pause();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !engine(first).renewer().leased() && !engine(second).renewer().leased());
        assertThat(engine(first).localBlock().limit()).isEqualTo(2);
        assertThat(engine(second).localBlock().limit()).isEqualTo(2);

        redis.server().resume();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> engine(first).renewer().leased() && engine(second).renewer().leased());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                engine(first).localBlock().limit() + engine(second).localBlock().limit()).isEqualTo(5));
    }

    @Test
    void renewalsGoOnAfterRedisForgetsTheScripts() {
        RedisBulkhead bulkhead = instance(3, FailureMode.FAIL_CLOSED);
        String expiry = "e:" + engine(bulkhead).renewer().instanceId();
        long before = Long.parseLong(redis.inspect().hget("bulwark:{lost}:leased", expiry));

        redis.inspect().scriptFlush();

        // The next renewal is answered NOSCRIPT and sent again with its source.
        await().atMost(Duration.ofSeconds(5)).until(
                () -> Long.parseLong(redis.inspect().hget("bulwark:{lost}:leased", expiry)) > before);
        assertThat(engine(bulkhead).renewer().leased()).isTrue();
        assertThat(engine(bulkhead).localBlock().limit()).isEqualTo(3);
    }
}
