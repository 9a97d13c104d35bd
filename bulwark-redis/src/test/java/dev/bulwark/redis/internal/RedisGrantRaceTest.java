package dev.bulwark.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.redis.FailureMode;
import dev.bulwark.redis.RedisBulkhead;
import dev.bulwark.redis.testing.RedisFixture;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Forced interleavings of the two ways a grant reaches a joining waiter: its acquire's reply ("granted") and a grant
 * published by a script (or found by a poll), against a real {@code redis-server}. The second granter is played by
 * the test, which stops between the two halves of {@link ClusterBulkhead#grant} (permit registered, fate not yet
 * decided) while the paused server holds the reply back.
 */
class RedisGrantRaceTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    private static ClusterBulkhead engine(TestInfo test) {
        RedisClient client = redis.newClient();
        ClusterSettings settings = new ClusterSettings(test.getDisplayName(), new ClusterLimits(1, 1, 0L),
                Duration.ofSeconds(10), Duration.ofSeconds(3), Duration.ofSeconds(1), RedisFixture.PATIENT,
                FailureMode.FAIL_CLOSED, rejection -> { }, List.of(), List.of(), Ticker.system(), Scheduler.shared(),
                ForkJoinPool.commonPool(), null, null);
        ClusterBulkhead engine = ClusterConnections.start(settings, client);
        redis.track(engine::close);
        return engine;
    }

    /**
     * An async acquire whose reply said "granted" while another granter was between the two halves of
     * {@link ClusterBulkhead#grant}: its permit registered, the fate not yet decided. The paused server holds the
     * reply back until that first half is done; this returns once the reply was handled and anything its handler
     * sent has run in Redis.
     */
    private record RacedGrant(RemoteWaiter waiter, RemotePermit permit, CompletableFuture<Permit> future) {

        static RacedGrant start(ClusterBulkhead engine) {
            ClusterLimits before = engine.limits();
            CompletableFuture<Permit> future;
            RemoteWaiter waiter;
            RemotePermit permit;
            redis.server().pause();
            try {
                future = engine.acquireAsync(CancellationSignal.none());
                assertThat(engine.waiters).hasSize(1);
                waiter = engine.waiters.values().iterator().next();
                assertThat(waiter.status()).isEqualTo(RemoteWaiter.JOINING);
                permit = new RemotePermit(engine, waiter.id, 1, engine.ticker.read(), waiter.leaseRenewedAt);
                assertThat(engine.holdPermit(permit)).isTrue();
            } finally {
                redis.server().resume();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.limits() != before);
            // The reply handler runs to its end on the I/O thread before the next reply is read: anything it sent is
            // on the connection before this round trip, and Redis runs it first.
            engine.clusterCounts("test");
            return new RacedGrant(waiter, permit, future);
        }
    }

    @Test
    void aReplySayingGrantedLeavesTheSlotToAGranterAlreadyHandingItOver(TestInfo test) throws Exception {
        ClusterBulkhead engine = engine(test);
        RacedGrant raced = RacedGrant.start(engine);

        assertThat(redis.holdersOnServer(engine.name())).as("the granted slot is still held in Redis").isEqualTo(1);
        // The other granter's second half, as ClusterBulkhead.grant does it.
        engine.running.incrementAndGet();
        raced.waiter().permit = raced.permit();
        assertThat(raced.waiter().decide(RemoteWaiter.GRANTED)).isEqualTo(RemoteWaiter.JOINING);
        engine.removeWaiter(raced.waiter());
        raced.waiter().decided();
        Permit granted = raced.future().get(10, TimeUnit.SECONDS);
        assertThat(((PermitHandle) granted).permit()).isSameAs(raced.permit());
        granted.close();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.holdersOnServer(engine.name())).isZero());
    }

    @Test
    void aCancelWinningOverThatGranterReleasesTheSlotTheReplyGranted(TestInfo test) {
        ClusterBulkhead engine = engine(test);
        RacedGrant raced = RacedGrant.start(engine);
        assertThat(redis.holdersOnServer(engine.name())).isEqualTo(1);

        // The caller gives up before the other granter decides; that granter then loses and drops its permit.
        assertThat(raced.future().cancel(false)).isTrue();
        assertThat(raced.waiter().decide(RemoteWaiter.GRANTED)).isEqualTo(RemoteWaiter.ALREADY_DECIDED);
        engine.dropPermit(raced.permit());
        await("nobody holds the slot, so it is released").atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.holdersOnServer(engine.name())).isZero());
        assertThat(engine.localExecutingCount()).isZero();
    }
}
