package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CallOptions;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RemoteProcess;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Weighted calls and priorities on the cluster-wide bulkhead, across separate clients (as separate instances of a
 * service would be), against a real {@code redis-server}.
 */
class RedisBulkheadWeightTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    private static RedisBulkhead instance(TestInfo test, int maxConcurrency, int maxQueue) {
        return redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                .maxConcurrency(maxConcurrency).maxQueue(maxQueue).commandTimeout(RedisFixture.PATIENT)
                .build());
    }

    private static void awaitQueued(String name, long count) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.queuedOnServer(name)).isEqualTo(count));
    }

    private static Rejection rejectionOf(CompletableFuture<?> future) throws Exception {
        Throwable failure = future.handle((value, thrown) -> thrown).get(20, TimeUnit.SECONDS);
        assertThat(failure).isInstanceOf(BulkheadRejectedException.class);
        return ((BulkheadRejectedException) failure).rejection();
    }

    private static String extraOnServer(String name) {
        return redis.inspect().get("bulwark:{" + name + "}:extra");
    }

    @Test
    void aWeightedPermitTakesItsSlotsAndGivesBackExactlyThemOnce(TestInfo test) {
        RedisBulkhead bulkhead = instance(test, 5, 0);

        Permit heavy = bulkhead.acquireWith(CallOptions.weight(3));

        assertThat(bulkhead.executingCount()).isEqualTo(3);
        assertThat(bulkhead.localExecutingCount()).isEqualTo(3);
        assertThat(redis.holdersOnServer(bulkhead.name())).as("one permit").isEqualTo(1);
        assertThat(bulkhead.tryAcquireWith(CallOptions.weight(3))).as("only 2 slots left").isEmpty();
        Permit light = bulkhead.tryAcquireWith(CallOptions.weight(2)).orElseThrow();
        assertThat(bulkhead.executingCount()).isEqualTo(5);
        assertThat(bulkhead.tryAcquire()).isEmpty();

        heavy.close();
        heavy.close();

        await().untilAsserted(() -> assertThat(bulkhead.executingCount()).isEqualTo(2));
        assertThat(bulkhead.localExecutingCount()).isEqualTo(2);
        assertThat(heavy.isReleased()).isTrue();
        light.close();
        await().untilAsserted(() -> assertThat(bulkhead.executingCount()).isZero());
        assertThat(extraOnServer(bulkhead.name())).as("no slot left over").isNull();
        assertThat(bulkhead.call(CallOptions.weight(5), () -> "all five")).isEqualTo("all five");
        await().untilAsserted(() -> assertThat(bulkhead.executingCount()).isZero());
    }

    @Test
    void aWeightAboveTheLimitIsRefusedAtOnceNamingWeight(TestInfo test) throws Exception {
        RedisBulkhead bulkhead = instance(test, 2, 5);
        AtomicBoolean ran = new AtomicBoolean();
        CallOptions three = CallOptions.weight(3);

        assertThatThrownBy(() -> bulkhead.acquireWith(three)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight").hasMessageContaining("3");
        assertThatThrownBy(() -> bulkhead.call(three, () -> ran.getAndSet(true)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight");
        assertThatThrownBy(() -> bulkhead.tryAcquireWith(three)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight");
        for (CompletableFuture<?> future : List.of(bulkhead.acquireAsyncWith(three),
                bulkhead.callAsync(three, () -> CompletableFuture.completedFuture(ran.getAndSet(true))))) {
            assertThat(future.handle((value, thrown) -> thrown).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weight");
        }
        assertThat(ran).isFalse();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void aHeavyHeadWaiterIsNotPassedByLaterLightCallersOfOtherInstances(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 3, 10);
        RedisBulkhead heavyInstance = instance(test, 3, 10);
        RedisBulkhead lightInstance = instance(test, 3, 10);
        List<String> order = new CopyOnWriteArrayList<>();
        Permit first = holder.acquire();
        Permit second = holder.acquire();
        CompletableFuture<Permit> heavy = heavyInstance.acquireAsyncWith(CallOptions.weight(3));
        CompletableFuture<Void> heavyRecorded = heavy.thenRun(() -> order.add("heavy"));
        awaitQueued(holder.name(), 1);
        CompletableFuture<Permit> light = lightInstance.acquireAsyncWith(CallOptions.weight(1));
        CompletableFuture<Void> lightRecorded = light.thenRun(() -> order.add("light"));

        awaitQueued(holder.name(), 2);
        assertThat(lightInstance.tryAcquire()).as("a free slot is not taken past the heavy head").isEmpty();
        first.close();
        await().untilAsserted(() -> assertThat(holder.executingCount()).isEqualTo(1));
        assertThat(heavy).isNotDone();
        assertThat(light).as("2 slots free, still behind the head needing 3").isNotDone();

        second.close();
        Permit heavyPermit = heavy.get(20, TimeUnit.SECONDS);
        assertThat(holder.executingCount()).isEqualTo(3);
        assertThat(light).isNotDone();
        heavyRecorded.get(20, TimeUnit.SECONDS);
        heavyPermit.close();
        light.get(20, TimeUnit.SECONDS).close();
        // The completing thread runs the recording stage after get() may already have returned here.
        lightRecorded.get(20, TimeUnit.SECONDS);

        assertThat(order).containsExactly("heavy", "light");
        await().untilAsserted(() -> assertThat(holder.executingCount()).isZero());
    }

    @Test
    void loweringTheLimitBelowAQueuedWeightRefusesThatWaiterPrecisely(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 4, 10);
        RedisBulkhead other = instance(test, 4, 10);
        Permit all = holder.acquireWith(CallOptions.weight(4));
        CompletableFuture<Permit> heavy = other.acquireAsyncWith(CallOptions.builder().weight(3)
                .priority(Priority.HIGH).build());
        awaitQueued(holder.name(), 1);
        CompletableFuture<Permit> light = other.acquireAsync();
        awaitQueued(holder.name(), 2);

        holder.changeMaxConcurrency(2);

        Rejection rejection = rejectionOf(heavy);
        assertThat(rejection.reason()).isEqualTo(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT);
        assertThat(rejection.priority()).isEqualTo(Priority.HIGH);
        assertThat(rejection.maxConcurrency()).isEqualTo(2);
        awaitQueued(holder.name(), 1);
        assertThat(light).isNotDone();
        all.close();
        light.get(20, TimeUnit.SECONDS).close();
        await().untilAsserted(() -> assertThat(holder.executingCount()).isZero());
        assertThat(extraOnServer(holder.name())).isNull();
    }

    @Test
    void aCallMeetingALowerLimitInRedisThanItsInstanceSawIsRefusedWithTheWeightReason(TestInfo test)
            throws Exception {
        RedisBulkhead stale = instance(test, 4, 10);
        RedisBulkhead other = instance(test, 4, 10);
        other.changeMaxConcurrency(2);
        assertThat(stale.maxConcurrency()).as("not seen yet").isEqualTo(4);

        Rejection rejection = rejectionOf(stale.acquireAsyncWith(CallOptions.weight(3)));
        assertThat(rejection.reason()).isEqualTo(Rejection.Reason.WEIGHT_EXCEEDS_LIMIT);
        assertThat(rejection.queuedCount()).as("the refused call is not waiting").isZero();
        assertThat(stale.maxConcurrency()).isEqualTo(2);
        assertThatThrownBy(() -> stale.acquireWith(CallOptions.weight(3))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void higherPrioritiesAreServedFirstAndFifoWithinOne(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 10);
        RedisBulkhead waiters = instance(test, 1, 10);
        List<String> order = new CopyOnWriteArrayList<>();
        Permit held = holder.acquire();
        String[][] arrivals = {{"low-1", "LOW"}, {"normal-1", "NORMAL"}, {"critical-1", "CRITICAL"},
            {"normal-2", "NORMAL"}, {"critical-2", "CRITICAL"}, {"sheddable-1", "SHEDDABLE"}};
        List<CompletableFuture<String>> done = new CopyOnWriteArrayList<>();
        for (int i = 0; i < arrivals.length; i++) {
            String label = arrivals[i][0];
            done.add(waiters.callAsync(CallOptions.priority(Priority.valueOf(arrivals[i][1])), () -> {
                order.add(label);
                return CompletableFuture.completedFuture(label);
            }));
            awaitQueued(holder.name(), i + 1);
        }

        held.close();

        CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        assertThat(order).containsExactly("critical-1", "critical-2", "normal-1", "normal-2", "low-1",
                "sheddable-1");
    }

    @Test
    void aFullQueueEvictsTheNewestWaiterOfALowerPriority(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 2);
        RedisBulkhead other = instance(test, 1, 2);
        Permit held = holder.acquire();
        CompletableFuture<Permit> lowOld = other.acquireAsyncWith(CallOptions.priority(Priority.LOW));
        awaitQueued(holder.name(), 1);
        CompletableFuture<Permit> lowNew = other.acquireAsyncWith(CallOptions.priority(Priority.LOW));
        awaitQueued(holder.name(), 2);

        CompletableFuture<Permit> high = holder.acquireAsyncWith(CallOptions.priority(Priority.HIGH));

        Rejection evicted = rejectionOf(lowNew);
        assertThat(evicted.reason()).isEqualTo(Rejection.Reason.EVICTED);
        assertThat(evicted.priority()).isEqualTo(Priority.LOW);
        assertThat(lowOld).isNotDone();
        assertThatThrownBy(() -> other.call(CallOptions.priority(Priority.LOW), () -> "never"))
                .isInstanceOfSatisfying(BulkheadRejectedException.class, e -> {
                    assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL);
                    assertThat(e.rejection().priority()).isEqualTo(Priority.LOW);
                });
        held.close();
        Permit highPermit = high.get(20, TimeUnit.SECONDS);
        assertThat(lowOld).isNotDone();
        highPermit.close();
        lowOld.get(20, TimeUnit.SECONDS).close();
        await().untilAsserted(() -> assertThat(holder.executingCount()).isZero());
    }

    @Test
    void aHigherPriorityNewcomerThatRunsAtOnceEvictsNobodyFromAFullQueue(TestInfo test) throws Exception {
        // Found by audit: the script evicted the tail before it found that the newcomer, the new head, fits; the
        // newcomer then ran without taking a queue place, and the evicted waiter was refused for nothing.
        RedisBulkhead holder = instance(test, 3, 1);
        RedisBulkhead other = instance(test, 3, 1);
        Permit one = holder.acquire();
        CompletableFuture<Permit> heavy = other.acquireAsync(3); // 2 free: waits, and the queue is full
        awaitQueued(holder.name(), 1);

        Permit high = holder.acquireWith(CallOptions.priority(Priority.HIGH)); // its 1 slot is free: runs at once

        assertThat(heavy).isNotDone();
        assertThat(holder.queuedCount()).isEqualTo(1);
        high.close();
        one.close();
        heavy.get(10, TimeUnit.SECONDS).close();
        await().untilAsserted(() -> assertThat(holder.executingCount()).isZero());
        assertThat(holder.queuedCount()).isZero();
    }

    @Test
    void anEvictedWaiterWhoseNoticeWasMissedIsRefusedEvictedByItsNextRenewNotRunWithoutAPermit(TestInfo test)
            throws Exception {
        RedisBulkhead holder = instance(test, 1, 1);
        // The evicted waiter's instance: failing open, a waiter taken for lost would run without a permit. Its
        // client reconnects only after a long delay, so the eviction notice published meanwhile never reaches it.
        ClientResources slowReconnect = DefaultClientResources.builder()
                .reconnectDelay(Delay.constant(Duration.ofSeconds(60))).build();
        redis.track(() -> slowReconnect.shutdown(0, 2, TimeUnit.SECONDS));
        RedisClient deafClient = RedisClient.create(slowReconnect,
                RedisURI.builder(RedisURI.create(redis.server().uri())).withClientName("deaf").build());
        deafClient.setOptions(RedisBulkhead.clientOptions());
        redis.track(deafClient::shutdown);
        RedisBulkhead deaf = redis.track(RedisBulkhead.builder(deafClient, test.getDisplayName())
                .maxConcurrency(1).maxQueue(1).commandTimeout(RedisFixture.PATIENT)
                .failureMode(FailureMode.FAIL_OPEN).build());
        Permit held = holder.acquire();
        CompletableFuture<Permit> low = deaf.acquireAsyncWith(CallOptions.priority(Priority.LOW));
        awaitQueued(holder.name(), 1);
        String deafPubSub = redis.inspect().clientList().lines()
                .filter(line -> line.contains(" name=deaf ") && line.contains(" sub=1 ")).findFirst().orElseThrow();
        long deafPubSubId = Long.parseLong(deafPubSub.replaceFirst("^id=(\\d+) .*$", "$1"));
        redis.inspect().clientKill(KillArgs.Builder.id(deafPubSubId));

        CompletableFuture<Permit> high = holder.acquireAsyncWith(CallOptions.priority(Priority.HIGH));

        Rejection evicted = rejectionOf(low);
        assertThat(evicted.reason()).isEqualTo(Rejection.Reason.EVICTED);
        assertThat(evicted.priority()).isEqualTo(Priority.LOW);
        held.close();
        high.get(20, TimeUnit.SECONDS).close();
        await().untilAsserted(() -> assertThat(holder.executingCount()).isZero());
    }

    @Test
    void aQueueAboveALoweredLimitRefusesAHigherPriorityWithoutEvictingAnyone(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 3);
        RedisBulkhead other = instance(test, 1, 3);
        Permit held = holder.acquire();
        List<CompletableFuture<Permit>> low = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            low.add(other.acquireAsyncWith(CallOptions.priority(Priority.LOW)));
            awaitQueued(holder.name(), i + 1);
        }
        holder.changeMaxQueue(1);

        assertThatThrownBy(() -> holder.call(CallOptions.priority(Priority.CRITICAL), () -> "never"))
                .isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL));
        assertThat(redis.queuedOnServer(holder.name())).as("nobody evicted for nothing").isEqualTo(3);
        assertThat(low).noneMatch(CompletableFuture::isDone);
        held.close();
        for (CompletableFuture<Permit> waiter : low) {
            waiter.get(20, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void mixedWeightsFromFourInstancesNeverExceedTheLimitAndEveryCallEndsOnce(TestInfo test) throws Exception {
        int limit = 5;
        List<RedisBulkhead> instances = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            instances.add(instance(test, limit, 100));
        }
        // Independent of the bulkhead: the slots in use right now, counted inside the operations.
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> workers = new ArrayList<>();
        int callsPerThread = 25;
        for (int i = 0; i < instances.size(); i++) {
            RedisBulkhead bulkhead = instances.get(i);
            for (int t = 0; t < 3; t++) {
                int seed = i * 3 + t;
                Thread worker = new Thread(() -> {
                    for (int call = 0; call < callsPerThread; call++) {
                        int weight = 1 + (seed + call) % 3;
                        CallOptions options = CallOptions.weight(weight);
                        try {
                            if (call % 2 == 0) {
                                bulkhead.call(options, () -> {
                                    inside(weight, limit, inFlight, mostInFlight);
                                    return weight;
                                });
                            } else {
                                bulkhead.callAsync(options, () -> CompletableFuture.supplyAsync(() -> {
                                    inside(weight, limit, inFlight, mostInFlight);
                                    return weight;
                                })).get(60, TimeUnit.SECONDS);
                            }
                            completed.incrementAndGet();
                        } catch (Throwable failure) {
                            failures.add(failure);
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
        }
        for (Thread worker : workers) {
            worker.join(120_000);
        }

        assertThat(failures).isEmpty();
        assertThat(completed).hasValue(4 * 3 * callsPerThread);
        assertThat(mostInFlight.get()).as("slots in use, counted independently").isBetween(1, limit);
        await().untilAsserted(() -> {
            assertThat(redis.holdersOnServer(test.getDisplayName())).isZero();
            assertThat(redis.queuedOnServer(test.getDisplayName())).isZero();
        });
        assertThat(extraOnServer(test.getDisplayName())).as("every weight given back exactly").isNull();
    }

    private static void inside(int weight, int limit, AtomicInteger inFlight, AtomicInteger mostInFlight) {
        int now = inFlight.addAndGet(weight);
        mostInFlight.accumulateAndGet(now, Math::max);
        if (now > limit) {
            throw new AssertionError(now + " slots in use, above the limit of " + limit);
        }
        LockSupport.parkNanos(200_000);
        inFlight.addAndGet(-weight);
    }

    @Test
    void aKilledInstancesWeightedPermitGivesBackExactlyItsSlotsWithinOneLease(TestInfo test) throws Exception {
        String name = test.getDisplayName();
        try (RemoteProcess remote = RemoteProcess.start("hold", redis.server().uri(), name, "1500", "300", "3")) {
            assertThat(remote.awaitLine("HELD", Duration.ofSeconds(60))).startsWith("HELD 3");
            RedisBulkhead local = redis.track(RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(3)
                    .maxQueue(10).build());
            assertThat(local.executingCount()).isEqualTo(3);
            CompletableFuture<Permit> waiting = local.acquireAsyncWith(CallOptions.weight(2));
            awaitQueued(name, 1);

            remote.kill();

            Permit permit = waiting.get(30, TimeUnit.SECONDS);
            assertThat(local.executingCount()).as("the dead holder's 3 slots are back, exactly").isEqualTo(2);
            assertThat(local.tryAcquire()).map(p -> {
                p.close();
                return true;
            }).hasValue(true);
            permit.close();
            await().untilAsserted(() -> assertThat(local.executingCount()).isZero());
            assertThat(extraOnServer(name)).isNull();
        }
    }
}
