package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.DrainResult;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Queued callers learn at once that Redis is gone (stopped, frozen by SIGSTOP, or pausing its clients), with the
 * default lease, heartbeat, poll and command timeout: refused {@code UNAVAILABLE} (or run without a permit when
 * failing open) within 2 s, never granted a slot nobody backs; holders hear of a lease they cannot renew before it
 * ends. Each test runs against its own real {@code redis-server}.
 */
class RedisBulkheadFailFastTest {

    /** The goal of issue 17 with the default settings. */
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(2);

    @RegisterExtension
    final RedisFixture redis = RedisFixture.perTest();

    /** Default lease (10 s), heartbeat (3 s), poll (1 s) and command timeout (1 s). */
    private RedisBulkhead.Builder defaults(String name) {
        return RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(1).maxQueue(5);
    }

    /** A sync waiter (a parked thread) and an async one, each noting when and how it ended. */
    private static final class Waiters {
        final CompletableFuture<Object> sync = new CompletableFuture<>();
        final AtomicLong syncEndedAt = new AtomicLong();
        final CompletableFuture<Permit> async;
        final AtomicLong asyncEndedAt = new AtomicLong();

        Waiters(RedisBulkhead bulkhead) {
            Thread thread = new Thread(() -> {
                try {
                    Object result = bulkhead.call(() -> "ran");
                    syncEndedAt.set(System.nanoTime());
                    sync.complete(result);
                } catch (Throwable failure) {
                    syncEndedAt.set(System.nanoTime());
                    sync.completeExceptionally(failure);
                }
            });
            thread.setDaemon(true);
            thread.start();
            async = bulkhead.acquireAsync();
            async.whenComplete((permit, failure) -> asyncEndedAt.set(System.nanoTime()));
        }

        void assertRefusedUnavailableWithin(long since, Duration bound) {
            // The async time is recorded by a dependent stage, which may run just after the future is done.
            await().atMost(bound.plusSeconds(10)).until(() -> sync.isDone() && asyncEndedAt.get() != 0L);
            for (CompletableFuture<?> waiter : List.of(sync, async)) {
                Throwable failure = waiter.handle((value, thrown) -> thrown).join();
                assertThat(failure).as("never granted").isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> {
                            assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.UNAVAILABLE);
                            assertThat(e.getCause()).as("the Redis failure").isNotNull();
                        });
            }
            assertThat(Duration.ofNanos(syncEndedAt.get() - since)).as("sync waiter refused after")
                    .isLessThanOrEqualTo(bound);
            assertThat(Duration.ofNanos(asyncEndedAt.get() - since)).as("async waiter refused after")
                    .isLessThanOrEqualTo(bound);
        }
    }

    private void awaitQueued(String name, long count) {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.queuedOnServer(name)).isEqualTo(count));
    }

    @Test
    void waitersAreRefusedWithinTwoSecondsWhenRedisStops() {
        RedisBulkhead holder = redis.track(defaults("stopped").build());
        RedisBulkhead other = redis.track(defaults("stopped").build());
        holder.acquire();
        Waiters waiters = new Waiters(other);
        awaitQueued("stopped", 2);

        long stoppedAt = System.nanoTime();
        redis.server().stop();

        waiters.assertRefusedUnavailableWithin(stoppedAt, REFUSED_WITHIN);
        assertThat(other.localQueuedCount()).isZero();
    }

    @Test
    void waitersAreRefusedWithinTwoSecondsWhenRedisIsFrozenAndNeverGetTheSlotAfterwards() {
        RedisBulkhead holder = redis.track(defaults("frozen").build());
        RedisBulkhead other = redis.track(defaults("frozen").build());
        Permit held = holder.acquire();
        Waiters waiters = new Waiters(other);
        awaitQueued("frozen", 2);

        long pausedAt = System.nanoTime();
        redis.server().pause();
        try {
            waiters.assertRefusedUnavailableWithin(pausedAt, REFUSED_WITHIN);
        } finally {
            redis.server().resume();
        }

        // The refused waiters' places were released once Redis ran again: the slot goes to nobody of theirs.
        awaitQueued("frozen", 0);
        held.close();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(redis.holdersOnServer("frozen")).isZero());
        assertThat(other.localExecutingCount()).isZero();
        assertThat(other.call(() -> "works again")).isEqualTo("works again");
    }

    @Test
    void waitersAreRefusedWithinTwoSecondsWhenRedisPausesItsClients() {
        RedisBulkhead holder = redis.track(defaults("slow").build());
        RedisBulkhead other = redis.track(defaults("slow").build());
        Permit held = holder.acquire();
        Waiters waiters = new Waiters(other);
        awaitQueued("slow", 2);

        long pausedAt = System.nanoTime();
        redis.inspect().clientPause(4_000);

        waiters.assertRefusedUnavailableWithin(pausedAt, REFUSED_WITHIN);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(redis.queuedOnServer("slow")).isZero());
        held.close();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(redis.holdersOnServer("slow")).isZero());
    }

    @Test
    void failingOpenQueuedWaitersRunWithoutAPermitWithinTwoSeconds() throws Exception {
        List<Throwable> ranWithout = new CopyOnWriteArrayList<>();
        RedisBulkhead holder = redis.track(defaults("open").build());
        RedisBulkhead other = redis.track(defaults("open").failureMode(FailureMode.FAIL_OPEN)
                .redisListener(new RedisBulkheadListener() {
                    @Override
                    public void ranWithoutPermit(Throwable cause) {
                        ranWithout.add(cause);
                    }
                }).build());
        holder.acquire();
        Waiters waiters = new Waiters(other);
        awaitQueued("open", 2);

        long pausedAt = System.nanoTime();
        redis.server().pause();
        try {
            assertThat(waiters.sync.get(REFUSED_WITHIN.toMillis() + 10_000, TimeUnit.MILLISECONDS)).isEqualTo("ran");
            Permit unbacked = waiters.async.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(Math.max(waiters.syncEndedAt.get(), waiters.asyncEndedAt.get()) - pausedAt))
                    .isLessThanOrEqualTo(REFUSED_WITHIN);
            assertThat(unbacked.toString()).contains("without a slot");
            unbacked.close();
            assertThat(ranWithout).hasSize(2);
        } finally {
            redis.server().resume();
        }
    }

    @Test
    void aHolderHearsItsLeaseIsLostBeforeItEndsAndItsCloseFreesTheSlot() {
        List<LostPermit> lost = new CopyOnWriteArrayList<>();
        AtomicLong noticedAtMillis = new AtomicLong();
        List<String> noticedOn = new CopyOnWriteArrayList<>();
        RedisBulkhead holder = redis.track(RedisBulkhead.builder(redis.newClient(), "lease")
                .leaseDuration(Duration.ofSeconds(3)).heartbeatInterval(Duration.ofMillis(500))
                .pollInterval(Duration.ofMillis(500)).commandTimeout(Duration.ofMillis(500))
                .redisListener(new RedisBulkheadListener() {
                    @Override
                    public void permitLost(LostPermit lostPermit) {
                        noticedAtMillis.compareAndSet(0, System.currentTimeMillis());
                        noticedOn.add(Thread.currentThread().getName());
                        lost.add(lostPermit);
                    }
                }).build());
        Permit held = holder.acquire();
        // The lease expiry Redis holds (server TIME, the same wall clock on this machine): a renewal after this read
        // only moves it later, so it is a strict bound for the notice.
        double expiresAtMillis = redis.inspect().zscore("bulwark:{lease}:holders",
                redis.inspect().zrange("bulwark:{lease}:holders", 0, 0).get(0));

        redis.server().pause();
        try {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lost).hasSize(1));
        } finally {
            redis.server().resume();
        }

        assertThat(lost.get(0).cause()).isEqualTo(LostPermit.Cause.LEASE_NOT_RENEWED);
        assertThat((double) noticedAtMillis.get()).as("told before the lease ends").isLessThan(expiresAtMillis);
        assertThat(noticedOn).as("no user code on the timer thread").doesNotContain("bulwark-timer");
        assertThat(holder.localExecutingCount()).isZero();
        // Heartbeats sent while Redis was frozen ran when it woke and renewed the lease: the holder's close still
        // frees the slot at once rather than a lease later.
        held.close();
        await().atMost(Duration.ofMillis(2_000))
                .untilAsserted(() -> assertThat(redis.holdersOnServer("lease")).isZero());
        assertThat(lost).hasSize(1);
    }

    @Test
    void aDrainCountsAFailingOpenWaiterAsRunningFromTheMomentRedisIsFoundGone() throws Exception {
        // The executor delivers the async waiter's fate: holding it keeps the waiter decided (Redis gone, run
        // without a permit) but not yet started, which is where a drain used to find the instance idle.
        ExecutorService executor = Executors.newSingleThreadExecutor();
        CountDownLatch executorHeld = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        try {
            RedisBulkhead holder = redis.track(defaults("drained-open").build());
            RedisBulkhead other = redis.track(defaults("drained-open").failureMode(FailureMode.FAIL_OPEN)
                    .executor(executor).build());
            holder.acquire();
            CompletableFuture<Permit> waiter = other.acquireAsync();
            awaitQueued("drained-open", 1);
            executor.execute(() -> {
                executorHeld.countDown();
                await().atMost(Duration.ofSeconds(30)).until(() -> letGo.getCount() == 0);
            });
            assertThat(executorHeld.await(10, TimeUnit.SECONDS)).isTrue();

            redis.server().stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> other.localQueuedCount() == 0);
            DrainResult drained = other.drain(Duration.ZERO);

            assertThat(drained.stillExecuting()).as("the call about to run without a permit").isOne();
            assertThat(drained.isComplete()).isFalse();
            letGo.countDown();
            Permit unbacked = waiter.get(10, TimeUnit.SECONDS);
            assertThat(unbacked.toString()).contains("without a slot");
            assertThat(other.drain(Duration.ZERO).stillExecuting()).isOne();
            unbacked.close();
            assertThat(other.drain(Duration.ZERO).isComplete()).as("counted out once, at its close").isTrue();
        } finally {
            letGo.countDown();
            executor.shutdown();
        }
    }

    @Test
    void failingOpenAnAsyncCallWhoseCallerCancelledBeforeItsTurnCameDoesNotRunItsOperation() throws Exception {
        failingOpenACallerWhoGaveUpRunsNothing(false);
    }

    @Test
    void failingOpenAnAsyncCallWhoseFutureWasCancelledBeforeItsTurnCameDoesNotRunItsOperation() throws Exception {
        failingOpenACallerWhoGaveUpRunsNothing(true);
    }

    private void failingOpenACallerWhoGaveUpRunsNothing(boolean byFuture) throws Exception {
        // Deliveries wait here until the test lets them go: the cancel lands after the UNAVAILABLE decision.
        BlockingQueue<Runnable> deliveries = new LinkedBlockingQueue<>();
        RedisBulkhead holder = redis.track(defaults("open-cancelled").build());
        RedisBulkhead other = redis.track(defaults("open-cancelled").failureMode(FailureMode.FAIL_OPEN)
                .executor(deliveries::add).build());
        Permit held = holder.acquire();
        CancellationSignal signal = CancellationSignal.create();
        AtomicBoolean ran = new AtomicBoolean();
        CompletableFuture<String> call = other.callAsync(() -> {
            ran.set(true);
            return CompletableFuture.completedFuture("ran");
        }, signal);
        awaitQueued("open-cancelled", 1);

        Runnable delivery;
        redis.server().pause();
        try {
            delivery = deliveries.poll(REFUSED_WITHIN.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        } finally {
            redis.server().resume();
        }
        assertThat(delivery).as("the UNAVAILABLE decision's delivery").isNotNull();
        if (byFuture) {
            assertThat(call.cancel(false)).as("a cancel against a call that would run without a permit").isTrue();
        } else {
            signal.cancel();
        }
        delivery.run();

        Throwable failure = call.handle((value, thrown) -> thrown).get(10, TimeUnit.SECONDS);
        assertThat(failure).isInstanceOf(CancellationException.class);
        assertThat(ran).as("the operation of a caller who gave up").isFalse();
        assertThat(other.drain(Duration.ZERO).stillExecuting()).isZero();
        held.close();
    }
}
