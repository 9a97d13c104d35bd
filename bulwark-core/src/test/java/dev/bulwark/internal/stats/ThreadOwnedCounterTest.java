package dev.bulwark.internal.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Races on {@link ThreadOwnedCounter}: claims, shared slots, takeovers of ended owners and sums taken meanwhile.
 * Tables of one or two cells force every thread onto the same slots, so each path runs thousands of times.
 */
class ThreadOwnedCounterTest {

    @Test
    void oneThreadCountsExactlyInItsOwnCell() {
        ThreadOwnedCounter counter = new ThreadOwnedCounter();
        for (int i = 0; i < 1_000; i++) {
            counter.increment();
        }
        assertThat(counter.sum()).isEqualTo(1_000);
    }

    @Test
    void aTableThatIsNotAPowerOfTwoIsRefused() {
        assertThatThrownBy(() -> new ThreadOwnedCounter(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cells");
    }

    /**
     * Many threads on two cells: two can own one, the others share the adder and race to take over the cells of
     * threads that ended (each thread ends after its increments, and a new generation starts). A reader sums all
     * the while: never down, never above the increments begun; exact once every thread is joined.
     */
    @RepeatedTest(5)
    void concurrentIncrementsClaimsAndTakeoversLoseNothingAndSumsNeverGoDown() throws Exception {
        ThreadOwnedCounter counter = new ThreadOwnedCounter(2);
        int generations = 6;
        int threadsPerGeneration = 4;
        int perThread = 20_000;
        AtomicLong begun = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Queue<Long> violations = new ConcurrentLinkedQueue<>();
        Thread reader = new Thread(() -> {
            long last = 0;
            while (!done.get()) {
                long sum = counter.sum();
                // Every increment is begun (counted in begun) before it is made, and a sum that sees an increment
                // sees its begun too: begun, read after the sum, bounds it.
                long bound = begun.get();
                if (sum < last || sum > bound) {
                    violations.add(sum);
                }
                last = sum;
            }
        });
        reader.start();
        for (int g = 0; g < generations; g++) {
            CyclicBarrier start = new CyclicBarrier(threadsPerGeneration);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < threadsPerGeneration; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        start.await();
                    } catch (Exception interrupted) {
                        throw new IllegalStateException(interrupted);
                    }
                    for (int i = 0; i < perThread; i++) {
                        begun.incrementAndGet();
                        counter.increment();
                    }
                });
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(counter.sum()).as("exact after generation %d", g)
                    .isEqualTo((long) (g + 1) * threadsPerGeneration * perThread);
        }
        done.set(true);
        reader.join();
        assertThat(violations).as("sums that went down or above the increments begun").isEmpty();
    }

    /** A cell whose owner ended is taken over by the next thread of that slot, which keeps counting on from it. */
    @Test
    void theCellOfAnEndedThreadIsTakenOverWithItsCount() throws Exception {
        ThreadOwnedCounter counter = new ThreadOwnedCounter(1);
        Thread first = new Thread(() -> {
            for (int i = 0; i < 10; i++) {
                counter.increment();
            }
        });
        first.start();
        first.join();
        CountDownLatch counted = new CountDownLatch(1);
        AtomicBoolean tookOver = new AtomicBoolean();
        Thread second = new Thread(() -> {
            // Takeover is tried once in TAKEOVER_INTERVAL calls on average: enough calls make it all but certain.
            for (int i = 0; i < 100 * ThreadOwnedCounter.TAKEOVER_INTERVAL; i++) {
                counter.increment();
            }
            tookOver.set(counter.ownerOfSlot(0) == Thread.currentThread());
            counted.countDown();
        });
        second.start();
        counted.await();
        second.join();
        assertThat(tookOver).as("the second thread owns the slot now").isTrue();
        assertThat(counter.sum()).isEqualTo(10 + 100L * ThreadOwnedCounter.TAKEOVER_INTERVAL);
    }

    /** A live owner keeps its cell: other threads of its slot count in the shared adder, nothing is lost. */
    @Test
    void aLiveOwnerIsNeverDisplaced() throws Exception {
        ThreadOwnedCounter counter = new ThreadOwnedCounter(1);
        counter.increment(); // this thread owns the only cell
        List<Thread> others = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Thread other = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    counter.increment();
                }
            });
            other.start();
            others.add(other);
        }
        for (int i = 0; i < 10_000; i++) {
            counter.increment();
        }
        for (Thread other : others) {
            other.join();
        }
        assertThat(counter.ownerOfSlot(0)).isSameAs(Thread.currentThread());
        assertThat(counter.sum()).isEqualTo(1 + 10_000 + 3 * 10_000L);
    }

    /**
     * Virtual threads (Java 21+; skipped on older JDKs): thousands of short-lived threads, each with its own id, land
     * on slots whose owners mostly ended, share the adder or take cells over; nothing is lost.
     */
    @Test
    void shortLivedVirtualThreadsLoseNothing() throws Exception {
        ExecutorService virtual;
        try {
            virtual = (ExecutorService) java.util.concurrent.Executors.class
                    .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (NoSuchMethodException beforeJava21) {
            Assumptions.abort("no virtual threads on this JDK");
            return;
        }
        ThreadOwnedCounter counter = new ThreadOwnedCounter(4);
        int tasks = 5_000;
        int perTask = 200;
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int t = 0; t < tasks; t++) {
                done.add(virtual.submit(() -> {
                    for (int i = 0; i < perTask; i++) {
                        counter.increment();
                    }
                }));
            }
            for (Future<?> task : done) {
                task.get();
            }
        } finally {
            virtual.shutdown();
        }
        assertThat(counter.sum()).isEqualTo((long) tasks * perTask);
    }
}
