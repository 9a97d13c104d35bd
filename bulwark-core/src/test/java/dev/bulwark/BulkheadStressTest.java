package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Behaviours 17 and 20: many threads mixing sync calls, async calls, permits, timeouts, cancellations and
 * interrupts. Asserts the invariants, not timings: never more than the limit running, never more than the queue
 * limit waiting, every call accounted for exactly once, counters back to zero.
 */
@Tag("slow") // long-running: left out of mutation testing
class BulkheadStressTest {

    private static final int LIMIT = 3;
    private static final int QUEUE = 12;
    private static final int WORKERS = 8;
    private static final int CALLS_PER_WORKER = 4_000;
    private static final int MAX_ASYNC_IN_FLIGHT = 1;

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunningSeen = new AtomicInteger();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

    @Test
    void invariantsHoldUnderAMixedWorkload() throws Exception {
        AtomicLong admittedEvents = new AtomicLong();
        AtomicLong waitedAdmissions = new AtomicLong();
        AtomicLong releasedEvents = new AtomicLong();
        AtomicLong timeouts = new AtomicLong();
        AtomicLong leftQueue = new AtomicLong();
        Bulkhead bulkhead = Bulkhead.builder().name("stress").maxConcurrency(LIMIT).maxQueue(QUEUE)
                .maxWait(Duration.ofMillis(2)).listener(new BulkheadListener() {
                    @Override
                    public void admitted(long waitedNanos) {
                        java.time.Duration waited = java.time.Duration.ofNanos(waitedNanos);
                        admittedEvents.incrementAndGet();
                        if (!waited.isZero()) {
                            waitedAdmissions.incrementAndGet();
                        }
                    }

                    @Override
                    public void rejected(Rejection rejection) {
                        if (rejection.reason() == Rejection.Reason.WAIT_TIMEOUT) {
                            timeouts.incrementAndGet();
                        }
                    }

                    @Override
                    public void cancelled(long waitedNanos) {
                        java.time.Duration waited = java.time.Duration.ofNanos(waitedNanos);
                        leftQueue.incrementAndGet();
                    }

                    @Override
                    public void released(long executionNanos) {
                        java.time.Duration executionTime = java.time.Duration.ofNanos(executionNanos);
                        releasedEvents.incrementAndGet();
                    }
                }).build();
        ScheduledExecutorService completer = Executors.newScheduledThreadPool(2);
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger maxQueuedSeen = new AtomicInteger();
        AtomicInteger maxExecutingSeen = new AtomicInteger();
        Thread monitor = new Thread(() -> {
            while (!done.get()) {
                maxQueuedSeen.accumulateAndGet(bulkhead.queuedCount(), Math::max);
                maxExecutingSeen.accumulateAndGet(bulkhead.executingCount(), Math::max);
                Thread.onSpinWait();
            }
        }, "monitor");
        monitor.start();

        List<Thread> workers = new ArrayList<>();
        List<CompletableFuture<?>> asyncOutcomes = new ArrayList<>();
        CyclicBarrier start = new CyclicBarrier(WORKERS + 1);
        for (int w = 0; w < WORKERS; w++) {
            SplittableRandom random = new SplittableRandom(w);
            List<CompletableFuture<?>> mine = new ArrayList<>();
            Thread worker = new Thread(() -> {
                awaitQuietly(start);
                for (int i = 0; i < CALLS_PER_WORKER; i++) {
                    oneCall(bulkhead, random, completer, mine);
                    // Keep a few async calls in flight per worker, as a real caller would, instead of flooding
                    // the queue with them (which would only measure refusals).
                    if (mine.size() > MAX_ASYNC_IN_FLIGHT) {
                        mine.get(mine.size() - MAX_ASYNC_IN_FLIGHT - 1).join();
                    }
                    Thread.interrupted(); // an interrupt aimed at a previous call must not leak into the next
                }
                synchronized (asyncOutcomes) {
                    asyncOutcomes.addAll(mine);
                }
            }, "worker-" + w);
            worker.start();
            workers.add(worker);
        }
        Thread chaos = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(99);
            while (!done.get()) {
                workers.get(random.nextInt(WORKERS)).interrupt();
                Thread.yield();
            }
        }, "interrupter");
        awaitQuietly(start);
        chaos.start();

        for (Thread worker : workers) {
            worker.join(TimeUnit.MINUTES.toMillis(2));
            assertThat(worker.isAlive()).as("%s finished", worker.getName()).isFalse();
        }
        CompletableFuture.allOf(asyncOutcomes.toArray(new CompletableFuture<?>[0])).handle((v, e) -> null)
                .get(1, TimeUnit.MINUTES);
        done.set(true);
        monitor.join();
        chaos.join();
        completer.shutdown();

        System.out.printf("stress: completed %d, rejected %d (wait timeouts %d), cancelled %d (left the queue %d),"
                + " admitted after waiting %d%n", completed.get(), rejected.get(), timeouts.get(), cancelled.get(),
                leftQueue.get(), waitedAdmissions.get());
        assertThat(unexpected).isEmpty();
        assertThat(releasedEvents.get()).as("every admission released once").isEqualTo(admittedEvents.get());
        assertThat(maxRunningSeen.get()).isLessThanOrEqualTo(LIMIT);
        assertThat(maxExecutingSeen.get()).isLessThanOrEqualTo(LIMIT);
        assertThat(maxQueuedSeen.get()).isLessThanOrEqualTo(QUEUE);
        assertThat(completed.get() + rejected.get() + cancelled.get())
                .isEqualTo((long) WORKERS * CALLS_PER_WORKER);
        assertThat(completed.get()).isPositive();
        await().atMost(Duration.ofSeconds(10)).until(() -> bulkhead.executingCount() == 0);
        assertThat(bulkhead.queuedCount()).isZero();
        List<Permit> all = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            all.add(bulkhead.tryAcquire().orElseThrow());
        }
        assertThat(bulkhead.tryAcquire()).isEmpty();
        all.forEach(Permit::close);
        assertThat(bulkhead.executingCount()).isZero();
    }

    private void oneCall(Bulkhead bulkhead, SplittableRandom random, ScheduledExecutorService completer,
                         List<CompletableFuture<?>> asyncOutcomes) {
        CancellationSignal signal = random.nextInt(4) == 0 ? CancellationSignal.create() : CancellationSignal.none();
        if (signal.canBeCancelled()) {
            completer.schedule(() -> signal.cancel(), random.nextInt(200), TimeUnit.MICROSECONDS);
        }
        AtomicInteger runs = new AtomicInteger();
        int kind = random.nextInt(6);
        try {
            switch (kind) {
                case 0 -> {
                    bulkhead.call(() -> work(runs), signal);
                    completed.incrementAndGet();
                }
                case 1 -> {
                    try (Permit permit = bulkhead.acquire(signal)) {
                        work(runs);
                    }
                    completed.incrementAndGet();
                }
                case 2 -> {
                    Optional<Permit> permit = bulkhead.tryAcquire();
                    if (permit.isPresent()) {
                        work(runs);
                        permit.get().close();
                        completed.incrementAndGet();
                    } else {
                        rejected.incrementAndGet();
                    }
                }
                case 3, 4 -> {
                    boolean later = kind == 4;
                    CompletableFuture<Integer> result = bulkhead.callAsync(() -> {
                        enter(runs);
                        if (!later) {
                            exit();
                            return CompletableFuture.completedFuture(1);
                        }
                        CompletableFuture<Integer> stage = new CompletableFuture<>();
                        completer.schedule(() -> {
                            exit();
                            stage.complete(1);
                        }, random.nextInt(100), TimeUnit.MICROSECONDS);
                        return stage;
                    }, signal);
                    if (random.nextInt(8) == 0) {
                        result.cancel(false);
                    }
                    asyncOutcomes.add(result.handle((value, failure) -> {
                        account(failure, runs);
                        return null;
                    }));
                }
                default -> {
                    CompletableFuture<Permit> permit = bulkhead.acquireAsync(signal);
                    asyncOutcomes.add(permit.handle((granted, failure) -> {
                        if (granted != null) {
                            work(runs);
                            granted.close();
                        }
                        account(failure, runs);
                        return null;
                    }));
                }
            }
        } catch (BulkheadRejectedException e) {
            expectNotRun(runs);
            rejected.incrementAndGet();
        } catch (CancellationException e) {
            expectNotRun(runs);
            cancelled.incrementAndGet();
        } catch (Throwable e) {
            unexpected.add(e);
        }
    }

    private void account(Throwable failure, AtomicInteger runs) {
        if (failure == null) {
            completed.incrementAndGet();
            return;
        }
        if (failure instanceof BulkheadRejectedException) {
            expectNotRun(runs);
            rejected.incrementAndGet();
        } else if (failure instanceof CancellationException) {
            // A caller-cancelled future may belong to an operation that did run; the slot accounting is what is
            // checked for those (counters back to zero), and a run never happens twice.
            if (runs.get() > 1) {
                unexpected.add(new AssertionError("ran " + runs.get() + " times"));
            }
            cancelled.incrementAndGet();
        } else {
            unexpected.add(failure);
        }
    }

    private void expectNotRun(AtomicInteger runs) {
        if (runs.get() != 0) {
            unexpected.add(new AssertionError("a refused or cancelled call ran " + runs.get() + " times"));
        }
    }

    private int work(AtomicInteger runs) {
        enter(runs);
        exit();
        return 1;
    }

    private void enter(AtomicInteger runs) {
        if (runs.incrementAndGet() != 1) {
            unexpected.add(new AssertionError("an operation ran twice"));
        }
        int now = running.incrementAndGet();
        maxRunningSeen.accumulateAndGet(now, Math::max);
    }

    private void exit() {
        running.decrementAndGet();
    }

    private static void awaitQuietly(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
