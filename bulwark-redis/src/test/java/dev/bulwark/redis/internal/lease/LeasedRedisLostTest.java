package dev.bulwark.redis.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Scheduler;
import dev.bulwark.redis.FailureMode;
import dev.bulwark.redis.LeasedEngines;
import dev.bulwark.redis.RedisBulkhead;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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

    @Test
    void aRenewalTheClientRefusesUnsentIsSentAgainAfterATenthOfThePeriod() {
        // While its client is disconnected (here: the server died) every renewal is refused at once without being
        // sent. It cost Redis nothing, so the chain sends the next after a tenth of the period: once the client can
        // reach a Redis again (a restarted server, a promoted replica) the instance renews within that tenth, not
        // a whole period later. Before, each came a period (±25%) after the last.
        List<Long> delays = new CopyOnWriteArrayList<>();
        Scheduler shared = Scheduler.shared();
        Scheduler recording = (task, delay, unit) -> {
            delays.add(unit.toNanos(delay));
            return shared.schedule(task, delay, unit);
        };
        Duration period = Duration.ofSeconds(1);
        try (RedisServer server = RedisServer.start()) {
            RedisClient client = RedisClient.create(server.uri());
            client.setOptions(RedisBulkhead.clientOptions());
            try (RedisBulkhead bulkhead = RedisBulkhead.builder(client, "unsent").maxConcurrency(2)
                    .commandTimeout(Duration.ofMillis(200)).failureMode(FailureMode.FAIL_CLOSED)
                    .scheduler(recording).leased(period).build()) {
                LeasedBulkhead engine = engine(bulkhead);
                assertThat(delays).allSatisfy(delay -> assertThat(delay)
                        .isGreaterThanOrEqualTo(period.toNanos() * 3 / 4));

                server.kill();
                await().atMost(Duration.ofSeconds(10)).until(() -> !engine.renewer().leased());
                int seen = delays.size();
                await().atMost(Duration.ofSeconds(10)).until(() -> delays.size() >= seen + 3);
                assertThat(delays.subList(seen, seen + 3)).allSatisfy(delay -> assertThat(delay)
                        .isBetween(period.toNanos() / 10 * 3 / 4, period.toNanos() / 8));
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void redisRestartedEmptyLetsTheFleetRunAtMostTwiceTheLimitUntilEveryInstanceRenewedOnce() throws Exception {
        // A restart without persistence forgets the records: an instance renewing first finds the whole limit free
        // while the others still enforce their old blocks until their own next renewal. The stated bound: the
        // limits enforced sum to at most the old blocks of those not yet renewed plus the new records, so at most
        // twice the limit, and back within the limit once every instance renewed once. Measured here by a counter
        // of the calls' own, outside the bulkheads.
        int limit = 8;
        int instances = 4;
        int threads = 4;
        Duration period = Duration.ofMillis(200);
        List<RedisBulkhead> fleet = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            fleet.add(redis.track(RedisBulkhead.builder(redis.newClient(), "restarted").maxConcurrency(limit)
                    .maxQueue(threads).commandTimeout(Duration.ofMillis(200)).failureMode(FailureMode.FAIL_CLOSED)
                    .leased(period).build()));
        }
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicLong lastAboveLimit = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> callers = new ArrayList<>();
        for (RedisBulkhead bulkhead : fleet) {
            for (int t = 0; t < threads; t++) {
                Thread caller = new Thread(() -> {
                    while (!stop.get()) {
                        try {
                            bulkhead.call(() -> {
                                int now = inFlight.incrementAndGet();
                                most.accumulateAndGet(now, Math::max);
                                if (now > limit) {
                                    lastAboveLimit.set(System.nanoTime());
                                }
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                                inFlight.decrementAndGet();
                                return null;
                            });
                        } catch (BulkheadRejectedException refused) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                        }
                    }
                });
                caller.setDaemon(true);
                caller.start();
                callers.add(caller);
            }
        }
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> fleet.stream()
                    .allMatch(bulkhead -> engine(bulkhead).localBlock().limit() == limit / instances));
            assertThat(most.get()).as("at most the limit before the restart").isLessThanOrEqualTo(limit);
            most.set(0);

            redis.server().restart();
            long restarted = System.nanoTime();
            // Every instance has renewed once on the empty server when each has a record again.
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> redis.inspect()
                    .hkeys("bulwark:{restarted}:leased").stream().filter(field -> field.startsWith("b:"))
                    .count() == instances);
            long allRenewed = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).until(() -> fleet.stream()
                    .allMatch(bulkhead -> engine(bulkhead).renewer().leased()));
            LockSupport.parkNanos(period.toNanos() * 2);
            long aboveFor = lastAboveLimit.get() - restarted;
            System.out.printf("Leased, Redis restarted empty, limit %d, %d instances: most in flight %d; last call"
                    + " above the limit %d ms after the restart; every instance recorded again %d ms after it%n",
                    limit, instances, most.get(), lastAboveLimit.get() > restarted ? aboveFor / 1_000_000 : -1,
                    (allRenewed - restarted) / 1_000_000);
            assertThat(most.get()).as("most in flight after the restart").isLessThanOrEqualTo(2 * limit);
            assertThat(lastAboveLimit.get() - allRenewed).as("ns above the limit after every instance renewed")
                    .isLessThanOrEqualTo(period.toNanos());
        } finally {
            stop.set(true);
            for (Thread caller : callers) {
                caller.join(5_000);
            }
        }
    }
}
