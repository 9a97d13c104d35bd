package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.RedisFixture;
import dev.bulwark.redis.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Drain and close of one instance of a cluster-wide bulkhead, against a real {@code redis-server}. */
class RedisBulkheadDrainTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    private static RedisBulkhead.Builder builder(TestInfo test) {
        return RedisBulkhead.builder(redis.newClient(), test.getDisplayName()).maxConcurrency(1).maxQueue(10)
                .commandTimeout(RedisFixture.PATIENT);
    }

    private static void awaitQueued(String name, long count) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.queuedOnServer(name)).isEqualTo(count));
    }

    private static Rejection.Reason reasonOf(CompletableFuture<?> future) {
        Throwable failure = future.handle((value, thrown) -> thrown).join();
        assertThat(failure).isInstanceOf(BulkheadRejectedException.class);
        return ((BulkheadRejectedException) failure).rejection().reason();
    }

    private static long connectedClients(RedisFixture server) {
        return server.inspect().clientList().lines().count();
    }

    @Test
    void aClosedInstanceRefusesNewCallsWithClosedThroughTheOverflowHandler(TestInfo test) {
        List<Rejection> handled = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = redis.track(builder(test).onRejected(handled::add).build());
        assertThat(bulkhead.isClosed()).isFalse();

        bulkhead.close();
        bulkhead.close();

        assertThat(bulkhead.isClosed()).isTrue();
        assertThatThrownBy(() -> bulkhead.call(() -> "never")).isInstanceOfSatisfying(
                BulkheadRejectedException.class, e -> assertThat(e.rejection().reason())
                        .isEqualTo(Rejection.Reason.CLOSED));
        assertThatThrownBy(bulkhead::acquire).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.CLOSED));
        assertThat(reasonOf(bulkhead.callAsync(() -> CompletableFuture.completedFuture("never"))))
                .isEqualTo(Rejection.Reason.CLOSED);
        assertThat(reasonOf(bulkhead.acquireAsync())).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(bulkhead.tryAcquire()).isEmpty();
        assertThat(handled).hasSize(4).allMatch(r -> r.reason() == Rejection.Reason.CLOSED
                && r.bulkheadName().equals(bulkhead.name()));
        assertThat(bulkhead.drain(Duration.ZERO)).isEqualTo(new DrainResult(bulkhead.name(), 0, 0, Duration.ZERO));
    }

    @Test
    void drainRefusesThisInstancesWaitersWaitsForItsRunningCallAndLeavesOtherInstancesAlone(TestInfo test)
            throws Exception {
        AtomicInteger released = new AtomicInteger();
        RedisBulkhead draining = redis.track(builder(test).listener(new BulkheadListener() {
            @Override
            public void released(long executionNanos) {
                released.incrementAndGet();
            }
        }).build());
        RedisBulkhead other = redis.track(builder(test).build());
        Permit held = draining.acquire();
        AtomicBoolean ran = new AtomicBoolean();
        CompletableFuture<Object> syncWaiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                syncWaiter.complete(draining.call(() -> ran.getAndSet(true)));
            } catch (Throwable failure) {
                syncWaiter.completeExceptionally(failure);
            }
        });
        thread.start();
        awaitQueued(draining.name(), 1);
        CompletableFuture<Permit> asyncWaiter = draining.acquireAsync();
        awaitQueued(draining.name(), 2);
        CompletableFuture<Permit> othersWaiter = other.acquireAsync();
        awaitQueued(draining.name(), 3);

        CompletableFuture<DrainResult> drained = CompletableFuture.supplyAsync(
                () -> draining.drain(Duration.ofSeconds(30)));

        assertThat(reasonOf(syncWaiter)).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(reasonOf(asyncWaiter)).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(ran).as("a refused waiter never runs").isFalse();
        awaitQueued(draining.name(), 1);
        assertThat(draining.isClosed()).isTrue();
        assertThat(drained).as("still waiting for the running call").isNotDone();
        assertThat(othersWaiter).isNotDone();

        held.close();
        held.close();

        DrainResult result = drained.get(20, TimeUnit.SECONDS);
        assertThat(result.bulkheadName()).isEqualTo(draining.name());
        assertThat(result.refusedWaiters()).isEqualTo(2);
        assertThat(result.stillExecuting()).isZero();
        assertThat(result.isComplete()).isTrue();
        assertThat(result.waited()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
        Permit othersPermit = othersWaiter.get(20, TimeUnit.SECONDS);
        assertThat(released).as("the release after close is counted once").hasValue(1);
        assertThat(redis.holdersOnServer(draining.name())).as("only the other instance's permit").isEqualTo(1);
        assertThat(draining.drain(Duration.ofSeconds(5)).refusedWaiters()).as("idempotent").isZero();
        othersPermit.close();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(draining.name())).isZero());
    }

    @Test
    void drainReturnsAtItsDeadlineWithWhatStillRunsWhichKeepsItsLeaseForOneMoreLease(TestInfo test) {
        // A server of its own, so that no other test's connections come and go while this one counts them.
        try (RedisFixture own = new RedisFixture(RedisServer.start())) {
            drainReturnsAtItsDeadline(own, test.getDisplayName());
        }
    }

    private static void drainReturnsAtItsDeadline(RedisFixture own, String name) {
        long before = connectedClients(own);
        RedisBulkhead bulkhead = own.track(RedisBulkhead.builder(own.newClient(), name).maxConcurrency(1)
                .leaseDuration(Duration.ofMillis(1500))
                .heartbeatInterval(Duration.ofMillis(200)).pollInterval(Duration.ofMillis(200))
                .commandTimeout(Duration.ofMillis(500)).build());
        Permit held = bulkhead.acquire();
        assertThat(connectedClients(own)).isEqualTo(before + 2);

        long start = System.nanoTime();
        DrainResult result = bulkhead.drain(Duration.ofMillis(300));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(result.stillExecuting()).isEqualTo(1);
        assertThat(result.isComplete()).isFalse();
        assertThat(result.waited()).isLessThanOrEqualTo(Duration.ofMillis(300));
        assertThat(took).as("never blocks past the deadline (plus scheduling)").isLessThan(Duration.ofSeconds(3));
        assertThat(bulkhead.drain(Duration.ZERO)).isEqualTo(new DrainResult(bulkhead.name(), 0, 1, Duration.ZERO));

        // Renewed past the deadline for one more lease at most (issue 38: a permit never outlives its bulkhead):
        // then released in Redis, and the instance shuts down although the call has not closed its permit.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(own.holdersOnServer(bulkhead.name())).isZero();
            assertThat(connectedClients(own)).as("connections closed once nothing is held").isEqualTo(before);
        });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not before the deadline plus one lease")
                .isGreaterThanOrEqualTo(Duration.ofMillis(1500));

        held.close(); // harmless: the permit was ended already
        assertThat(held.isReleased()).isTrue();
        assertThat(bulkhead.drain(Duration.ZERO).isComplete()).isTrue();
    }

    @Test
    void anInterruptedDrainReturnsEarlyWithTheFlagSet(TestInfo test) {
        RedisBulkhead bulkhead = redis.track(builder(test).build());
        Permit held = bulkhead.acquire();

        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        DrainResult result = bulkhead.drain(Duration.ofSeconds(60));

        assertThat(Thread.interrupted()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(result.stillExecuting()).isEqualTo(1);
        held.close();
        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();
    }

    @Test
    void aWaiterRefusedByTheDrainIsNotCountedAsQueuedInItsOwnRefusal(TestInfo test) throws Exception {
        RedisBulkhead bulkhead = redis.track(builder(test).build());
        Permit held = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        awaitQueued(bulkhead.name(), 1);

        bulkhead.close();

        Throwable failure = waiter.handle((value, thrown) -> thrown).get(20, TimeUnit.SECONDS);
        Rejection rejection = ((BulkheadRejectedException) failure).rejection();
        assertThat(rejection.reason()).isEqualTo(Rejection.Reason.CLOSED);
        assertThat(rejection.executingCount()).isEqualTo(1);
        assertThat(rejection.queuedCount()).as("the refused call waits no more").isZero();
        held.close();
    }

    @Test
    void clusterWideFiguresOfAnInstanceShutDownFailSayingSoAndLocalOnesStillAnswer(TestInfo test) {
        RedisBulkhead bulkhead = redis.track(builder(test).build());
        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();

        for (Runnable clusterWide : List.<Runnable>of(bulkhead::executingCount, bulkhead::queuedCount,
                () -> bulkhead.changeMaxConcurrency(2), () -> bulkhead.changeMaxQueue(2),
                () -> bulkhead.changeMaxWait(Duration.ofSeconds(1)))) {
            assertThatThrownBy(clusterWide::run).isInstanceOf(RedisBulkheadException.class)
                    .hasMessageContaining("closed").hasMessageNotContaining("did not answer")
                    .hasRootCauseInstanceOf(IllegalStateException.class);
        }
        assertThat(bulkhead.localExecutingCount()).isZero();
        assertThat(bulkhead.localQueuedCount()).isZero();
        assertThat(bulkhead.maxConcurrency()).as("unchanged: nothing was sent").isEqualTo(1);
    }

    @Test
    void badDeadlinesAreRefusedNamingTheParameter(TestInfo test) {
        RedisBulkhead bulkhead = redis.track(builder(test).build());
        assertThatThrownBy(() -> bulkhead.drain(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deadline");
        assertThatThrownBy(() -> bulkhead.drain(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("deadline");
        assertThat(bulkhead.isClosed()).isFalse();
    }

    @Test
    void closeRacingNewCallsEndsEachOnceAndLeavesNothingInRedis(TestInfo test) throws Exception {
        RedisBulkhead bulkhead = redis.track(builder(test).maxConcurrency(2).maxQueue(1000).build());
        int callers = 200;
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Permit>> futures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < callers / 4; i++) {
                    futures.add(bulkhead.acquireAsync());
                }
            });
            thread.start();
            threads.add(thread);
        }
        go.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> futures.size() >= callers / 5);
        bulkhead.close();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(20));
        }

        int granted = 0;
        for (CompletableFuture<Permit> future : futures) {
            Throwable failure = future.handle((value, thrown) -> thrown).get(20, TimeUnit.SECONDS);
            if (failure == null) {
                granted++;
                future.join().close();
            } else {
                assertThat(failure).isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> assertThat(e.rejection().reason()).isIn(Rejection.Reason.CLOSED));
            }
        }
        assertThat(futures).hasSize(callers);
        assertThat(granted).as("at most the two slots were granted before the close").isLessThanOrEqualTo(2);
        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(redis.queuedOnServer(bulkhead.name())).isZero();
            assertThat(redis.holdersOnServer(bulkhead.name())).isZero();
        });
    }

    @Test
    void aCancelAfterTheDrainRefusedAQueuedFutureIsRefusedAndTheFutureFailsWithClosed(TestInfo test)
            throws Exception {
        // The executor delivers every async waiter's fate: holding it keeps the drain's refusal decided but not yet
        // delivered, which is where a plain future's cancel used to win against it.
        ExecutorService executor = Executors.newSingleThreadExecutor();
        CountDownLatch executorHeld = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        try {
            RedisBulkhead bulkhead = redis.track(builder(test).executor(executor).build());
            Permit holder = bulkhead.acquire();
            CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
            awaitQueued(bulkhead.name(), 1);
            executor.execute(() -> {
                executorHeld.countDown();
                await().atMost(Duration.ofSeconds(30)).until(() -> letGo.getCount() == 0);
            });
            assertThat(executorHeld.await(10, TimeUnit.SECONDS)).isTrue();

            DrainResult drained = bulkhead.drain(Duration.ZERO);
            assertThat(drained.refusedWaiters()).isOne();
            assertThat(waiter.cancel(false)).as("the drain decided first").isFalse();
            letGo.countDown();

            assertThat(reasonOf(waiter)).isEqualTo(Rejection.Reason.CLOSED);
            assertThat(waiter.isCancelled()).isFalse();
            holder.close();
        } finally {
            letGo.countDown();
            executor.shutdown();
        }
    }

    @Test
    void aCancelWhileAFutureStillWaitsCancelsItAndLeavesTheQueue(TestInfo test) {
        RedisBulkhead bulkhead = redis.track(builder(test).build());
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        awaitQueued(bulkhead.name(), 1);

        assertThat(waiter.cancel(false)).isTrue();
        assertThat(waiter).isCancelled();
        awaitQueued(bulkhead.name(), 0);
        holder.close();
    }

    @Test
    void aTryAcquireInFlightWhenTheInstanceClosesCountsAsRunningUntilItsPermitCloses(TestInfo test) throws Exception {
        RedisBulkhead bulkhead = redis.track(builder(test).build());
        CompletableFuture<Optional<Permit>> attempt = new CompletableFuture<>();
        Thread caller = new Thread(() -> attempt.complete(bulkhead.tryAcquire()));
        DrainResult whileInFlight;
        redis.server().pause(); // holds the acquire's reply: the close lands while it is in flight
        try {
            caller.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> caller.getState() == Thread.State.WAITING);
            whileInFlight = bulkhead.drain(Duration.ZERO);
        } finally {
            redis.server().resume();
        }
        assertThat(whileInFlight.stillExecuting()).as("the call being admitted counts as running").isEqualTo(1);
        assertThat(whileInFlight.isComplete()).isFalse();

        Permit permit = attempt.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(bulkhead.drain(Duration.ZERO).isComplete()).as("not shut down under a held permit").isFalse();
        assertThat(redis.holdersOnServer(bulkhead.name())).isEqualTo(1);
        permit.close();
        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isZero());
    }
}
