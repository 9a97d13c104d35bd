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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 38, findings 5 and 6: what someone with write rights on Redis, or a caller that leaks permits, must not be
 * able to do to the cluster-wide limit (a corrupt config, a forged grant, a leaked permit).
 */
class RedisHostileWriterTest {

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    private RedisBulkhead.Builder builder(String name) {
        return RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(1).maxQueue(5)
                .leaseDuration(Duration.ofMillis(1500)).heartbeatInterval(Duration.ofMillis(200))
                .pollInterval(Duration.ofMillis(200)).commandTimeout(Duration.ofMillis(500));
    }

    private static String configKey(String name) {
        return "bulwark:{" + name + "}:config";
    }

    @Test
    void aCorruptConfigIsNeverAnAdmissionEvenFailingOpen() throws Exception {
        List<Throwable> ranWithout = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = redis.track(builder("corrupt").failureMode(FailureMode.FAIL_OPEN)
                .redisListener(new RedisBulkheadListener() {
                    @Override
                    public void ranWithoutPermit(Throwable cause) {
                        ranWithout.add(cause);
                    }
                }).build());
        redis.inspect().hset(configKey("corrupt"), "maxConcurrency", "abc");

        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> bulkhead.run(ran::incrementAndGet)).isInstanceOfSatisfying(
                    BulkheadRejectedException.class, e -> {
                        assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.UNAVAILABLE);
                        assertThat(e.getCause()).isInstanceOf(IllegalStateException.class)
                                .hasMessageContaining("corrupt").hasMessageContaining("maxConcurrency")
                                .hasMessageContaining("abc");
                    });
        }
        assertThat(bulkhead.tryAcquire()).as("tryAcquire fails open only on an outage").isEmpty();
        CompletableFuture<Permit> async = bulkhead.acquireAsync();
        assertThatThrownBy(() -> async.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> assertThat(e.getCause()).hasMessageContaining("maxConcurrency"));
        assertThat(ran).as("nothing ran at limit 'abc'").hasValue(0);
        assertThat(ranWithout).isEmpty();
        assertThat(bulkhead.localExecutingCount()).isZero();
        assertThatThrownBy(bulkhead::executingCount).isInstanceOf(RedisBulkheadException.class)
                .hasMessageContaining("maxConcurrency").hasMessageContaining("abc");

        // Another field, a value that Lua's tonumber would read (and the fast path must not admit on either).
        redis.inspect().hset(configKey("corrupt"), "maxConcurrency", "1");
        redis.inspect().hset(configKey("corrupt"), "maxQueue", "1.5");
        assertThatThrownBy(() -> bulkhead.run(ran::incrementAndGet)).isInstanceOfSatisfying(
                BulkheadRejectedException.class, e -> assertThat(e.getCause()).hasMessageContaining("maxQueue"));
        redis.inspect().hset(configKey("corrupt"), "maxQueue", "5");
        redis.inspect().hset(configKey("corrupt"), "maxConcurrency", "0x10");
        assertThat(bulkhead.tryAcquire()).isEmpty();
        assertThat(ran).hasValue(0);

        // The setter repairs the field it sets.
        bulkhead.changeMaxConcurrency(1);
        bulkhead.run(ran::incrementAndGet);
        assertThat(ran).hasValue(1);
        assertThat(ranWithout).isEmpty();
    }

    @Test
    void aNewInstanceRefusesToBuildOnACorruptConfigAndNamesTheField() {
        redis.track(builder("corrupt-build").build()).close();
        redis.inspect().hset(configKey("corrupt-build"), "maxConcurrency", "abc");

        assertThatThrownBy(() -> builder("corrupt-build").failureMode(FailureMode.FAIL_OPEN).build())
                .isInstanceOf(RedisBulkheadException.class)
                .hasMessageContaining("maxConcurrency").hasMessageContaining("abc")
                .hasMessageNotContaining("connection")
                .hasRootCauseInstanceOf(io.lettuce.core.RedisCommandExecutionException.class);

        redis.inspect().del(configKey("corrupt-build"));
        RedisBulkhead repaired = redis.track(builder("corrupt-build").build());
        await().untilAsserted(() -> assertThat(repaired.call(() -> true)).isTrue());
    }

    @Test
    void aForgedGrantOnTheChannelAdmitsNobody() throws Exception {
        RedisBulkhead holderInstance = redis.track(builder("forged").build());
        // Poll and heartbeat far apart from the forged message: only the message could wake the waiter.
        RedisBulkhead waiterInstance = redis.track(builder("forged").pollInterval(Duration.ofSeconds(5))
                .heartbeatInterval(Duration.ofSeconds(1)).leaseDuration(Duration.ofSeconds(10))
                .commandTimeout(Duration.ofSeconds(2)).build());
        Permit held = holderInstance.acquire();
        CompletableFuture<Permit> waiting = waiterInstance.acquireAsync();
        await().untilAsserted(() -> assertThat(redis.queuedOnServer("forged")).isEqualTo(1));
        String waiterId = redis.inspect().zrange("bulwark:{forged}:queue", 0, 0).get(0);

        long receivers = redis.inspect().publish("bulwark:{forged}:granted", waiterId);

        assertThat(receivers).as("both instances subscribe to the channel").isEqualTo(2);
        await("the forged grant admits nobody while the only slot is taken").during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3)).until(() -> !waiting.isDone());
        assertThat(waiterInstance.localExecutingCount()).isZero();
        assertThat(redis.holdersOnServer("forged")).isEqualTo(1);
        assertThat(redis.queuedOnServer("forged")).as("the waiter keeps its place").isEqualTo(1);

        held.close();
        Permit granted = waiting.get(10, TimeUnit.SECONDS);
        assertThat(holderInstance.executingCount()).isEqualTo(1);
        granted.close();
    }

    /**
     * The refusals on the channel were acted on as they came: a forged {@code ~id} refused a waiter as EVICTED, and
     * a forged {@code !limit:id} as WEIGHT_EXCEEDS_LIMIT (a malformed one threw on the pub/sub thread). Now they are
     * hints Redis must confirm, like grants: the waiter keeps its place and is granted in turn.
     */
    @Test
    void aForgedRefusalOnTheChannelRefusesNobody() throws Exception {
        RedisBulkhead holderInstance = redis.track(builder("forged-refusal").build());
        RedisBulkhead waiterInstance = redis.track(builder("forged-refusal").pollInterval(Duration.ofSeconds(5))
                .heartbeatInterval(Duration.ofSeconds(1)).leaseDuration(Duration.ofSeconds(10))
                .commandTimeout(Duration.ofSeconds(2)).build());
        Permit held = holderInstance.acquire();
        CompletableFuture<Permit> waiting = waiterInstance.acquireAsync();
        await().untilAsserted(() -> assertThat(redis.queuedOnServer("forged-refusal")).isEqualTo(1));
        String waiterId = redis.inspect().zrange("bulwark:{forged-refusal}:queue", 0, 0).get(0);

        for (String forged : new String[] {"~" + waiterId, "!0:" + waiterId, "!abc:" + waiterId, "!" + waiterId,
                "~", "!"}) {
            assertThat(redis.inspect().publish("bulwark:{forged-refusal}:granted", forged)).isEqualTo(2);
        }

        await("no forged refusal decides the waiter").during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(3)).until(() -> !waiting.isDone());
        assertThat(redis.queuedOnServer("forged-refusal")).as("the waiter keeps its place").isEqualTo(1);
        held.close();
        waiting.get(10, TimeUnit.SECONDS).close();
    }

    @Test
    void aLeakedPermitIsReleasedAndLoggedOnceCollected() throws Exception {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger("dev.bulwark.redis.RedisBulkhead");
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == Level.WARNING) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            RedisBulkhead bulkhead = redis.track(builder("leaked").maxConcurrency(2).build());
            leakTwoPermits(bulkhead);
            assertThat(redis.holdersOnServer("leaked")).isEqualTo(2);

            await("the collected permits are released").atMost(Duration.ofSeconds(20)).until(() -> {
                System.gc();
                return redis.holdersOnServer("leaked") == 0;
            });
            assertThat(bulkhead.localExecutingCount()).isZero();
            await().untilAsserted(() -> assertThat(warnings).hasSize(2));
            assertThat(warnings).allSatisfy(w -> assertThat(w.getMessage()).contains("'leaked'")
                    .contains("never closed"));
            assertThat(bulkhead.drain(Duration.ofSeconds(5)).stillExecuting())
                    .as("nothing of the leaked permits keeps the drain waiting").isZero();
        } finally {
            logger.removeHandler(handler);
        }
    }

    /** Acquires two permits and drops them unclosed, in a frame of its own so that nothing keeps them reachable. */
    private static void leakTwoPermits(RedisBulkhead bulkhead) {
        bulkhead.acquire();
        assertThat(bulkhead.tryAcquire()).isPresent();
    }

    @Test
    void aPermitStillHeldWhenItsInstanceClosesEndsOneLeaseAfterTheDeadline() throws Exception {
        List<LostPermit> lost = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = redis.track(builder("outlived").redisListener(new RedisBulkheadListener() {
            @Override
            public void permitLost(LostPermit lostPermit) {
                lost.add(lostPermit);
            }
        }).build());
        Permit held = bulkhead.acquire();

        assertThat(bulkhead.drain(Duration.ofMillis(200)).stillExecuting()).isEqualTo(1);

        // Lease 1.5 s: renewed past the deadline for one lease at most, then ended and released.
        await("the closed instance stops renewing the permit it holds").atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.holdersOnServer("outlived")).isZero());
        await().untilAsserted(() -> assertThat(lost).hasSize(1));
        assertThat(lost.get(0).cause().name()).isEqualTo("BULKHEAD_CLOSED");
        assertThat(lost.get(0).bulkheadName()).isEqualTo("outlived");
        RedisBulkhead other = redis.track(builder("outlived").build());
        other.run(() -> { });
        held.close(); // harmless: frees nobody else's slot
        assertThat(other.executingCount()).isZero();
    }

    @Test
    void aPermitHeldPastTheMaximumHoldTimeIsEndedAndItsHolderTold() throws Exception {
        List<LostPermit> lost = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = redis.track(builder("held-too-long").maxHoldTime(Duration.ofMillis(300))
                .redisListener(new RedisBulkheadListener() {
                    @Override
                    public void permitLost(LostPermit lostPermit) {
                        lost.add(lostPermit);
                    }
                }).build());
        Permit held = bulkhead.acquire();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lost).hasSize(1));
        assertThat(lost.get(0).cause()).isEqualTo(LostPermit.Cause.HELD_TOO_LONG);
        assertThat(lost.get(0).heldFor()).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        await().untilAsserted(() -> assertThat(redis.holdersOnServer("held-too-long")).isZero());
        assertThat(bulkhead.localExecutingCount()).isZero();
        Permit next = bulkhead.tryAcquire().orElseThrow();
        held.close(); // harmless: frees nobody else's slot
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        next.close();
        assertThat(bulkhead.drain(Duration.ofSeconds(5)).isComplete()).isTrue();
    }
}
