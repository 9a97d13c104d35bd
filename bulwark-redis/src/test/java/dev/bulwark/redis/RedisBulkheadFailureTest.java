package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redis restarted or stopped under a bulkhead: lost permits, lost places, fail-closed and fail-open. */
class RedisBulkheadFailureTest {

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    private RedisBulkhead.Builder shortLeases(String name) {
        return RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(1).maxQueue(5)
                .leaseDuration(Duration.ofMillis(1500)).heartbeatInterval(Duration.ofMillis(200))
                .pollInterval(Duration.ofMillis(200)).commandTimeout(Duration.ofMillis(500));
    }

    private static RedisBulkheadListener collecting(List<LostPermit> lost, List<Throwable> ranWithout) {
        return new RedisBulkheadListener() {
            @Override
            public void permitLost(LostPermit lostPermit) {
                lost.add(lostPermit);
            }

            @Override
            public void ranWithoutPermit(Throwable cause) {
                ranWithout.add(cause);
            }
        };
    }

    @Test
    void afterARestartHoldersLearnTheirPermitsAreLostWaitersFailAndNewCallsWork() throws Exception {
        List<LostPermit> lost = new CopyOnWriteArrayList<>();
        RedisBulkhead holder = redis.track(shortLeases("restart")
                .redisListener(collecting(lost, new CopyOnWriteArrayList<>())).build());
        RedisBulkhead other = redis.track(shortLeases("restart").build());
        Permit held = holder.acquire();
        CompletableFuture<Permit> waiting = other.acquireAsync();
        await().untilAsserted(() -> assertThat(redis.queuedOnServer("restart")).isEqualTo(1));

        redis.server().restart();

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(lost).hasSize(1));
        assertThat(lost.get(0).bulkheadName()).isEqualTo("restart");
        assertThat(held.toString()).contains(lost.get(0).permitId()).contains("lost");
        assertThat(holder.localExecutingCount()).isZero();
        assertThatThrownBy(() -> waiting.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.UNAVAILABLE));

        await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> other.call(() -> true));
        Permit fresh = other.acquire();
        held.close();
        assertThat(other.executingCount()).as("the lost permit's close frees nobody else's slot").isEqualTo(1);
        assertThat(other.tryAcquire()).isEmpty();
        fresh.close();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("restart")).isZero());
        assertThat(lost).hasSize(1);
    }

    @Test
    void failsClosedWhileRedisIsDownByDefault() throws Exception {
        List<Rejection> handled = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = redis.track(shortLeases("closed").onRejected(handled::add).build());
        assertThat(bulkhead.failureMode()).isEqualTo(FailureMode.FAIL_CLOSED);

        redis.server().stop();

        assertThatThrownBy(() -> bulkhead.call(() -> "never")).isInstanceOfSatisfying(
                BulkheadRejectedException.class, e -> {
                    assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.UNAVAILABLE);
                    assertThat(e.getCause()).as("the Redis failure").isNotNull();
                });
        assertThatThrownBy(() -> bulkhead.callAsync(() -> CompletableFuture.completedFuture("never"))
                .get(10, TimeUnit.SECONDS)).cause().isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.UNAVAILABLE));
        assertThat(bulkhead.tryAcquire()).isEmpty();
        assertThat(handled).hasSize(2).allMatch(r -> r.reason() == Rejection.Reason.UNAVAILABLE);
        assertThatThrownBy(bulkhead::executingCount).isInstanceOf(RedisBulkheadException.class)
                .hasMessageContaining("executingCount");

        redis.server().restart();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> bulkhead.call(() -> true));
    }

    @Test
    void failsOpenWhenConfiguredSo() throws Exception {
        List<Throwable> ranWithout = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = redis.track(shortLeases("open").failureMode(FailureMode.FAIL_OPEN)
                .redisListener(collecting(new CopyOnWriteArrayList<>(), ranWithout)).build());

        redis.server().stop();

        assertThat(bulkhead.call(() -> "ran anyway")).isEqualTo("ran anyway");
        assertThat(bulkhead.callAsync(() -> CompletableFuture.completedFuture("async anyway"))
                .get(10, TimeUnit.SECONDS)).isEqualTo("async anyway");
        Permit unbacked = bulkhead.tryAcquire().orElseThrow();
        unbacked.close();
        assertThat(unbacked.isReleased()).isTrue();
        assertThat(ranWithout).hasSize(3);

        redis.server().restart();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            int before = ranWithout.size();
            bulkhead.run(() -> { });
            assertThat(ranWithout).hasSize(before);
        });
        assertThat(bulkhead.executingCount()).isZero();
    }
}
