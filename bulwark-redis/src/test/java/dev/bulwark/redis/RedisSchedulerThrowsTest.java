package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadListener;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@link Scheduler} whose {@code schedule} throws (an {@link Error}, an {@link IllegalStateException}) never leaves
 * a {@link RedisBulkhead}'s call waiting forever, nor a place in its queue or a slot taken for nobody: the bulkhead
 * ends the call as the {@link Scheduler} Javadoc says. Nor does an executor whose {@code execute} throws.
 */
class RedisSchedulerThrowsTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    /**
     * Delegates to {@link Scheduler#shared()} (the bulkhead also schedules its heartbeat, polls and command timeouts
     * here), except that once {@link #throwFor} is called it throws for every task whose delay matches.
     */
    private static final class ThrowingScheduler implements Scheduler {
        private volatile Throwable thrown;
        private volatile LongPredicate matches = delay -> false;

        void throwFor(LongPredicate delayNanos, Throwable throwable) {
            thrown = throwable;
            matches = delayNanos;
        }

        @Override
        public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
            Throwable throwable = thrown;
            if (throwable != null && matches.test(unit.toNanos(delay))) {
                if (throwable instanceof Error error) {
                    throw error;
                }
                throw (RuntimeException) throwable;
            }
            return Scheduler.shared().schedule(task, delay, unit);
        }
    }

    /** A bulkhead name of the test's own: a parameterized test's display name alone ("[1] Error") is not. */
    private static String nameOf(TestInfo test) {
        return test.getTestMethod().orElseThrow().getName() + " " + test.getDisplayName();
    }

    private static Throwable thrown(String kind) {
        return kind.equals("Error") ? new AssertionError("the scheduler broke")
                : new IllegalStateException("no timer");
    }

    /**
     * The maximum wait of an asynchronous waiter could not be timed: found by audit, a RuntimeException abandoned it
     * as timed out (refused WAIT_TIMEOUT, the overflow handler called) and an Error escaped into the acquire's reply
     * callback, leaving the waiter queued for nobody (its future never completed).
     */
    @ParameterizedTest
    @ValueSource(strings = {"Error", "RuntimeException"})
    void anAsyncWaiterWhoseMaxWaitTimerIsRefusedLeavesTheQueueAndFailsWithTheSchedulersException(String kind,
            TestInfo test) throws Exception {
        ThrowingScheduler scheduler = new ThrowingScheduler();
        List<String> told = new CopyOnWriteArrayList<>();
        List<Rejection> handled = new CopyOnWriteArrayList<>();
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), nameOf(test))
                .maxConcurrency(1).maxQueue(1).maxWait(MAX_WAIT).commandTimeout(RedisFixture.PATIENT)
                .scheduler(scheduler).onRejected(handled::add)
                .listener(new BulkheadListener() {
                    @Override
                    public void rejected(Rejection rejection) {
                        told.add("rejected " + rejection.reason());
                    }

                    @Override
                    public void cancelled(long waitedNanos, Priority priority) {
                        told.add("cancelled");
                    }
                })
                .build());
        Permit holder = bulkhead.acquire();
        Throwable broken = thrown(kind);
        // Only the waiter's maximum wait is that long; heartbeats, polls and command timeouts keep working.
        scheduler.throwFor(delay -> delay > MAX_WAIT.toNanos() / 2, broken);

        CompletableFuture<Permit> queued = bulkhead.acquireAsync();

        await().atMost(Duration.ofSeconds(10)).until(queued::isDone);
        assertThat(queued).isCompletedExceptionally();
        assertThat(queued.handle((permit, failure) -> failure).get()).isSameAs(broken);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(told).containsExactly("cancelled"));
        assertThat(handled).as("the wait was given up, not refused: no overflow handler").isEmpty();
        assertThat(bulkhead.localQueuedCount()).isZero();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.queuedOnServer(bulkhead.name())).isZero());

        holder.close();

        // Nothing leaked: the slot the holder gave back is free for the next call, and nobody queues for it.
        Permit next = bulkhead.acquireAsync().get(10, TimeUnit.SECONDS);
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        next.close();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(bulkhead.executingCount()).isZero());
        assertThat(bulkhead.queuedCount()).isZero();
    }

    /**
     * Under a fake ticker a blocking waiter also asks the scheduler to wake it at its deadline. An Error from that
     * request escaped the wait with the waiter still queued in Redis, so the slot the holder then released was
     * granted to nobody and stayed taken.
     */
    @Test
    void anErrorFromTheFakeTickerWakeUpLeavesNoBlockingWaiterQueuedForNobody(TestInfo test) throws Exception {
        AtomicLong now = new AtomicLong(1_000_000_000L); // frozen: only the wake-up's refusal is under test
        ThrowingScheduler scheduler = new ThrowingScheduler();
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), nameOf(test))
                .maxConcurrency(1).maxQueue(1).maxWait(MAX_WAIT).leaseDuration(Duration.ofSeconds(120))
                .commandTimeout(RedisFixture.PATIENT).ticker(now::get).scheduler(scheduler).build());
        Permit holder = bulkhead.acquire();
        scheduler.throwFor(delay -> delay > MAX_WAIT.toNanos() / 2, new AssertionError("the scheduler broke"));
        FutureTask<Permit> blocked = new FutureTask<>(bulkhead::acquire);
        Thread waiter = new Thread(blocked, "blocked-waiter");
        waiter.setDaemon(true);
        waiter.start();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> redis.queuedOnServer(bulkhead.name()) == 1 || blocked.isDone());

        holder.close();

        try (Permit granted = blocked.get(10, TimeUnit.SECONDS)) {
            assertThat(granted).isNotNull();
            assertThat(bulkhead.localExecutingCount()).isEqualTo(1);
        }
        assertThat(bulkhead.localQueuedCount()).isZero();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(bulkhead.executingCount()).isZero());
    }

    /**
     * Every script's command timeout is a task on the scheduler. An Error from scheduling it escaped the script's
     * send after the command was written: acquireAsync threw it, leaving its waiter registered for good and the slot
     * Redis granted to it taken for nobody. Now the reply is bounded by the client's own timeout only, as when the
     * scheduler refuses with a RuntimeException.
     */
    @Test
    void anErrorFromSchedulingTheCommandTimeoutLeavesTheCallsWorking(TestInfo test) throws Exception {
        Duration commandTimeout = Duration.ofMillis(4321); // no other task of the bulkhead has this delay
        ThrowingScheduler scheduler = new ThrowingScheduler();
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), nameOf(test))
                .maxConcurrency(1).maxQueue(1).commandTimeout(commandTimeout).scheduler(scheduler).build());
        scheduler.throwFor(delay -> delay == commandTimeout.toNanos(), new AssertionError("the scheduler broke"));

        Permit permit = bulkhead.acquireAsync().get(10, TimeUnit.SECONDS);
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        CompletableFuture<String> queued = bulkhead.callAsync(() -> CompletableFuture.completedFuture("ran"));
        await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.localQueuedCount() == 1);
        permit.close();
        assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
        try (Permit sync = bulkhead.acquire()) {
            assertThat(sync).isNotNull();
        }

        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();
        assertThat(redis.holdersOnServer(bulkhead.name())).isZero();
        assertThat(redis.queuedOnServer(bulkhead.name())).isZero();
    }

    /**
     * An Error from scheduling the lease keeper's first tick escaped build() past the clean-up that closes the
     * connections on a failed start (which catches RuntimeExceptions). Now it is handled as a refused heartbeat is:
     * logged, and the bulkhead works (its leases are not renewed).
     */
    @Test
    void anErrorFromSchedulingTheHeartbeatIsHandledAsARefusal(TestInfo test) throws Exception {
        Duration tick = Duration.ofSeconds(1); // the poll interval: the shortest of heartbeat, probe and poll
        ThrowingScheduler scheduler = new ThrowingScheduler();
        scheduler.throwFor(delay -> delay == tick.toNanos(), new AssertionError("the scheduler broke"));

        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), nameOf(test))
                .maxConcurrency(1).pollInterval(tick).commandTimeout(RedisFixture.PATIENT).scheduler(scheduler)
                .build());

        assertThat(bulkhead.callAsync(() -> CompletableFuture.completedFuture("ran")).get(10, TimeUnit.SECONDS))
                .isEqualTo("ran");
        assertThat(bulkhead.drain(Duration.ofSeconds(10)).isComplete()).isTrue();
        assertThat(redis.holdersOnServer(bulkhead.name())).isZero();
    }

    /**
     * Asynchronous outcomes are delivered on the builder's executor, and on the common pool once it refuses. Only a
     * RejectedExecutionException was taken as a refusal: anything else it threw escaped into the acquire's reply
     * callback after the grant was decided, so the call's future never completed and its permit stayed held.
     */
    @ParameterizedTest
    @ValueSource(strings = {"Error", "RuntimeException"})
    void whateverTheExecutorThrowsTheOutcomeIsStillDelivered(String kind, TestInfo test) throws Exception {
        Throwable broken = thrown(kind);
        Executor throwing = task -> {
            if (broken instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) broken;
        };
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), nameOf(test))
                .maxConcurrency(1).maxQueue(1).commandTimeout(RedisFixture.PATIENT).executor(throwing).build());

        CompletableFuture<String> call = bulkhead.callAsync(() -> CompletableFuture.completedFuture("ran"));

        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(bulkhead.executingCount()).isZero());
        assertThat(bulkhead.localExecutingCount()).isZero();
    }
}
