package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Rejection;
import dev.bulwark.Scheduler;
import dev.bulwark.Ticker;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A blocking waiter of a {@link RedisBulkhead} under a fake ticker and a manual scheduler times its
 * {@code maxWait} by that ticker, as the in-process bulkhead's does: found by audit, it parked for the real
 * {@code maxWait}, and was granted a slot after its deadline had passed by the ticker.
 */
class RedisBulkheadFakeTimeTest {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    /** A fake ticker and a scheduler that runs a task only when the test moves that ticker past its deadline. */
    private static final class ManualTime implements Ticker, Scheduler {
        private final AtomicLong now = new AtomicLong(1_000_000_000L);
        private final List<Object[]> tasks = new ArrayList<>();

        @Override
        public long read() {
            return now.get();
        }

        @Override
        public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
            AtomicBoolean cancelled = new AtomicBoolean();
            synchronized (tasks) {
                tasks.add(new Object[] {now.get() + unit.toNanos(delay), task, cancelled});
            }
            return () -> cancelled.set(true);
        }

        /** Moves the ticker and runs, on this thread, every task due by then. */
        void advance(Duration by) {
            now.addAndGet(by.toNanos());
            List<Runnable> due = new ArrayList<>();
            synchronized (tasks) {
                tasks.removeIf(t -> {
                    if ((long) t[0] <= now.get()) {
                        if (!((AtomicBoolean) t[2]).get()) {
                            due.add((Runnable) t[1]);
                        }
                        return true;
                    }
                    return false;
                });
            }
            due.forEach(Runnable::run);
        }
    }

    @Test
    void aBlockingWaiterTimesOutByTheFakeTickerWithoutRealTime(TestInfo test) throws Exception {
        ManualTime time = new ManualTime();
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), test.getDisplayName())
                .maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(30)).leaseDuration(Duration.ofSeconds(120))
                .commandTimeout(RedisFixture.PATIENT)
                .ticker(time).scheduler(time).build());
        Permit held = bulkhead.acquire();
        CompletableFuture<Permit> waiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.complete(bulkhead.acquire());
            } catch (Throwable failure) {
                waiter.completeExceptionally(failure);
            }
        });
        thread.setDaemon(true);
        thread.start();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(redis.queuedOnServer(bulkhead.name())).isEqualTo(1));

        // Past its deadline by the ticker, and no real time passes; short of the lease, which this instance also
        // times by the ticker (a jump past it would report the held permit lost: see BuilderSettings.ticker).
        time.advance(Duration.ofSeconds(31));
        // Its wake-up may be armed only now (after the queue reply): keep running what became due. Well within the
        // 30 s it would park for in real time.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            time.advance(Duration.ZERO);
            return waiter.isDone();
        });

        assertThat(waiter).isCompletedExceptionally();
        Throwable failure = waiter.handle((permit, thrown) -> thrown).get();
        assertThat(failure).isInstanceOfSatisfying(BulkheadRejectedException.class,
                refused -> assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT));
        held.close();
    }
}
