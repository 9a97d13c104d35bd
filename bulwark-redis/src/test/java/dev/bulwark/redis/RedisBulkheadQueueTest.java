package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The cluster-wide queue: arrival order across clients, its limit, maximum wait and cancellation. */
class RedisBulkheadQueueTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    /** A separate client (connections of its own), as another instance of the service would be. */
    private static RedisBulkhead instance(TestInfo test, int maxConcurrency, int maxQueue) {
        return redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                .maxConcurrency(maxConcurrency).maxQueue(maxQueue).commandTimeout(RedisFixture.PATIENT).build());
    }

    private static void awaitQueued(String name, long count) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.queuedOnServer(name)).isEqualTo(count));
    }

    /**
     * The exception a future completed with, as the bulkhead made it: {@code get} rethrows a cancellation as it is
     * up to JDK 22 and wraps it in a new one from JDK 23 on.
     */
    private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
        return future.handle((value, thrown) -> thrown).get(10, TimeUnit.SECONDS);
    }

    private static Thread start(Runnable body) {
        Thread thread = new Thread(body);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Test
    void servesWaitersFromEveryClientInArrivalOrder(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 10);
        List<RedisBulkhead> clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            clients.add(instance(test, 1, 10));
        }
        List<Integer> order = new CopyOnWriteArrayList<>();
        Permit held = holder.acquire();
        List<CompletableFuture<?>> done = new ArrayList<>();

        // Staggered arrivals: each client joins only once the previous one is queued on the server; clients 0 and 2
        // wait with a parked thread, 1 and 3 asynchronously.
        for (int i = 0; i < 8; i++) {
            int index = i;
            RedisBulkhead client = clients.get(i % 4);
            if (i % 2 == 0) {
                CompletableFuture<Void> finished = new CompletableFuture<>();
                start(() -> {
                    client.run(() -> order.add(index));
                    finished.complete(null);
                });
                done.add(finished);
            } else {
                done.add(client.callAsync(() -> {
                    order.add(index);
                    return CompletableFuture.completedFuture(index);
                }));
            }
            awaitQueued(holder.name(), i + 1);
        }
        held.close();

        CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void refusesNewcomersWhenTheClusterWideQueueIsFull(TestInfo test) {
        RedisBulkhead first = instance(test, 1, 2);
        RedisBulkhead second = instance(test, 1, 2);
        RedisBulkhead third = instance(test, 1, 2);
        Permit held = first.acquire();
        CompletableFuture<Permit> waiterA = second.acquireAsync();
        awaitQueued(first.name(), 1);
        CompletableFuture<Permit> waiterB = third.acquireAsync();
        awaitQueued(first.name(), 2);

        assertThatThrownBy(() -> first.call(() -> "never")).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> assertThat(e.rejection()).isEqualTo(new Rejection(first.name(), Rejection.Reason.QUEUE_FULL,
                        1, 2, 1, 2, Duration.ZERO)));

        held.close();
        waiterA.join().close();
        waiterB.join().close();
    }

    @Test
    void aWaiterLeavesTheQueueAfterTheMaximumWaitSyncAndAsync(TestInfo test) throws Exception {
        List<Rejection> handled = new CopyOnWriteArrayList<>();
        RedisBulkhead holder = instance(test, 1, 5);
        RedisBulkhead waiter = redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                .maxConcurrency(1).maxQueue(5).maxWait(Duration.ofMillis(300)).onRejected(handled::add).build());
        holder.changeMaxWait(Duration.ofMillis(300));
        Permit held = holder.acquire();

        assertThatThrownBy(() -> waiter.call(() -> "never")).isInstanceOfSatisfying(BulkheadRejectedException.class,
                e -> {
                    assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
                    assertThat(e.rejection().waited()).isGreaterThanOrEqualTo(Duration.ofMillis(300));
                });
        CompletableFuture<String> async = waiter.callAsync(() -> CompletableFuture.completedFuture("never"));
        assertThatThrownBy(() -> async.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT));

        assertThat(handled).hasSize(2);
        awaitQueued(holder.name(), 0);
        held.close();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(holder.name())).isZero());
    }

    @Test
    void aSyncWaiterCancelledWhileQueuedLeavesAndItsPlaceGoesToTheNext(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 5);
        RedisBulkhead cancelled = instance(test, 1, 5);
        RedisBulkhead next = instance(test, 1, 5);
        Permit held = holder.acquire();
        CancellationSignal signal = CancellationSignal.create();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiting = start(() -> {
            try {
                cancelled.run(() -> outcome.set(new AssertionError("must not run")), signal);
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        awaitQueued(holder.name(), 1);
        CompletableFuture<String> after = next.callAsync(() -> CompletableFuture.completedFuture("next ran"));
        awaitQueued(holder.name(), 2);

        IllegalStateException reason = new IllegalStateException("user went away");
        signal.cancel(reason);
        waiting.join(10_000);

        assertThat(outcome.get()).isInstanceOf(CancellationException.class).hasCauseReference(reason);
        awaitQueued(holder.name(), 1);
        held.close();
        assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo("next ran");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(holder.name())).isZero());
    }

    @Test
    void anAsyncWaiterLeavesWhenItsSignalOrItsFutureIsCancelled(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 5);
        RedisBulkhead waiter = instance(test, 1, 5);
        Permit held = holder.acquire();
        CancellationSignal signal = CancellationSignal.create();
        CompletableFuture<String> bySignal = waiter.callAsync(() -> CompletableFuture.completedFuture("no"), signal);
        CompletableFuture<Permit> byFuture = waiter.acquireAsync();
        awaitQueued(holder.name(), 2);

        signal.cancel();
        byFuture.cancel(true);

        assertThat(failureOf(bySignal)).isInstanceOf(CancellationException.class)
                .hasMessageContaining("cancelled while queued");
        assertThat(byFuture).isCancelled();
        awaitQueued(holder.name(), 0);
        held.close();
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(holder.name())).isZero());
        assertThat(waiter.localQueuedCount()).isZero();
        assertThat(waiter.localExecutingCount()).isZero();
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueAndKeepsItsInterruptStatus(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 5);
        RedisBulkhead waiter = instance(test, 1, 5);
        Permit held = holder.acquire();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread waiting = start(() -> {
            try {
                waiter.run(() -> { });
            } catch (Throwable t) {
                outcome.set(t);
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        awaitQueued(holder.name(), 1);

        waiting.interrupt();
        waiting.join(10_000);

        assertThat(outcome.get()).isInstanceOf(CancellationException.class)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(stillInterrupted.get()).isTrue();
        awaitQueued(holder.name(), 0);
        held.close();
    }

    @Test
    void aGrantRacingACancellationIsNeverLeaked(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 5);
        RedisBulkhead waiter = instance(test, 1, 5);
        for (int round = 0; round < 25; round++) {
            Permit held = holder.acquire();
            CancellationSignal signal = CancellationSignal.create();
            CompletableFuture<Permit> waiting = waiter.acquireAsync(signal);
            awaitQueued(holder.name(), 1);
            CyclicBarrier together = new CyclicBarrier(2);
            Thread releaser = start(() -> {
                try {
                    together.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                held.close();
            });
            together.await();
            signal.cancel();
            releaser.join(10_000);
            // Either the permit reached the waiter first (then it is ours to close) or the cancellation won.
            Throwable failure = waiting.handle((permit, thrown) -> {
                if (permit != null) {
                    permit.close();
                }
                return thrown;
            }).get(10, TimeUnit.SECONDS);
            if (failure != null) {
                assertThat(failure).isInstanceOf(CancellationException.class)
                        .hasMessageContaining("cancelled while queued");
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(redis.holdersOnServer(holder.name())).isZero();
                assertThat(redis.queuedOnServer(holder.name())).isZero();
            });
        }
        assertThat(holder.tryAcquire()).isPresent().get().satisfies(Permit::close);
    }

    @Test
    void raisingTheLimitAdmitsQueuedCallersAtOnce(TestInfo test) throws Exception {
        RedisBulkhead holder = instance(test, 1, 5);
        RedisBulkhead other = instance(test, 1, 5);
        Permit held = holder.acquire();
        CompletableFuture<Permit> first = other.acquireAsync();
        CompletableFuture<Permit> second = other.acquireAsync();
        awaitQueued(holder.name(), 2);

        holder.changeMaxConcurrency(3);

        Permit a = first.get(10, TimeUnit.SECONDS);
        Permit b = second.get(10, TimeUnit.SECONDS);
        assertThat(holder.executingCount()).isEqualTo(3);
        holder.changeMaxConcurrency(1);
        a.close();
        b.close();
        await().untilAsserted(() -> assertThat(holder.executingCount()).isEqualTo(1));
        assertThat(other.tryAcquire()).as("lowered limit admits nobody until below it").isEmpty();
        held.close();
    }

    @Test
    void wakeUpsArriveByPubSubWithoutWaitingForThePoll(TestInfo test) throws Exception {
        // Poll and heartbeat far beyond the test's patience: only the published grant can wake the waiter in time.
        RedisBulkhead holder = instance(test, 1, 5);
        RedisBulkhead waiter = redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                .leaseDuration(Duration.ofMinutes(5)).heartbeatInterval(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMinutes(2)).build());
        Permit held = holder.acquire();
        CompletableFuture<Permit> waiting = waiter.acquireAsync();
        awaitQueued(holder.name(), 1);

        held.close();

        waiting.get(20, TimeUnit.SECONDS).close();
    }

    @Test
    void afterItsExecutorShutDownAGrantIsStillDeliveredButNeverOnARedisIoThread(TestInfo test) throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                .maxConcurrency(1).maxQueue(1).commandTimeout(RedisFixture.PATIENT).executor(executor).build());
        Permit held = bulkhead.acquire();
        CompletableFuture<Permit> queued = bulkhead.acquireAsync();
        AtomicReference<String> deliveredOn = new AtomicReference<>();
        CompletableFuture<Permit> observed = queued.whenComplete((permit, failure) ->
                deliveredOn.set(Thread.currentThread().getName()));
        awaitQueued(bulkhead.name(), 1);
        executor.shutdownNow();

        held.close(); // the grant reaches this instance on a Redis I/O thread, which must not run the caller's code

        observed.get(20, TimeUnit.SECONDS).close();
        assertThat(deliveredOn.get()).as("the thread that completed the caller's future")
                .doesNotStartWith("lettuce").startsWith("ForkJoinPool.commonPool");
        await().untilAsserted(() -> assertThat(redis.holdersOnServer(bulkhead.name())).isZero());
    }
}
