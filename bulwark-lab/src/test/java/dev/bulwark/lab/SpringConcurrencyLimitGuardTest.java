package dev.bulwark.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.resilience.annotation.EnableResilientMethods;

/**
 * The lab's Spring guards are Spring Framework 7's own {@code @ConcurrencyLimit}, with the run's limit: a real
 * Spring context with {@code @EnableResilientMethods}, {@link DependencyGuard} and {@link SpringLimitedWork}, and
 * work that holds until released (no PostgreSQL needed, so it runs in the default build, in about a
 * second). Each run gets a new proxy, whose limit Spring resolves at its first call: a second run with a higher
 * limit admits more calls.
 */
class SpringConcurrencyLimitGuardTest {

    /** A dependency's work that enters, then holds until released. */
    static final class HeldWork implements DependencyWork {
        final Semaphore entered = new Semaphore(0);
        volatile CountDownLatch release = new CountDownLatch(1);

        /** Shared, as {@link DependencyWork#times()} says: the calls that held and were released. */
        private final CallTimes times = new CallTimes();

        @Override
        public long serve() {
            long start = System.nanoTime();
            entered.release();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            times.record(System.nanoTime() - start);
            return 1;
        }

        @Override
        public CallTimes times() {
            return times;
        }
    }

    /**
     * The test's beans. Deliberately not a {@code @Configuration}: the lab application's component scan, which
     * covers this package in {@link OverloadLabTest}, must not find the held work here.
     */
    @EnableResilientMethods
    @Import({DependencyGuard.class, SpringLimitedWork.class})
    static class Config {
        @Bean
        HeldWork work() {
            return new HeldWork();
        }
    }

    @Test
    void rejectRefusesBeyondEachRunsLimit() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
            DependencyGuard guard = context.getBean(DependencyGuard.class);
            HeldWork work = context.getBean(HeldWork.class);
            int served = 0;
            for (int limit : new int[] {2, 3}) {
                guard.use(GuardMode.SPRING_REJECT, limit, Duration.ofMillis(50));
                work.release = new CountDownLatch(1);
                List<CompletableFuture<Long>> held = new ArrayList<>();
                for (int i = 0; i < limit; i++) {
                    held.add(CompletableFuture.supplyAsync(() -> call(guard, work), threads));
                }
                assertThat(work.entered.tryAcquire(limit, 10, TimeUnit.SECONDS))
                        .as("limit %d: %d calls in the work", limit, limit).isTrue();
                assertThatThrownBy(() -> guard.call(work)).as("limit %d: one more is refused", limit)
                        .isInstanceOf(DependencyGuard.Refused.class);
                work.release.countDown();
                for (CompletableFuture<Long> f : held) {
                    assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
                }
                served += limit;
                assertThat(work.times().snapshot().calls()).as("limit %d: the refused call never reached the work",
                        limit).isEqualTo(served);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void blockMakesTheCallBeyondTheLimitWaitForASlot() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
            DependencyGuard guard = context.getBean(DependencyGuard.class);
            HeldWork work = context.getBean(HeldWork.class);
            guard.use(GuardMode.SPRING_BLOCK, 1, Duration.ofMillis(50));
            Thread first = new Thread(() -> call(guard, work));
            first.start();
            assertThat(work.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            Thread second = new Thread(() -> call(guard, work));
            second.start();
            // Spring's BLOCK waits on a monitor without bound: the second call parks, outside the work.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (second.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(second.getState()).isEqualTo(Thread.State.WAITING);
            assertThat(work.entered.availablePermits()).isZero();
            work.release.countDown();
            assertThat(work.entered.tryAcquire(10, TimeUnit.SECONDS)).as("it enters once the first leaves").isTrue();
            first.join(10_000);
            second.join(10_000);
        }
    }

    private static long call(DependencyGuard guard, DependencyWork work) {
        try {
            return guard.call(work);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
