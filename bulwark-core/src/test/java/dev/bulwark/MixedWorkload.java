package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A mixed workload against one bulkhead, shared by the soak and the fault-injection tests: sync calls, permits,
 * {@code tryAcquire}, async calls that complete at once or later, async permits, and sync and async calls through
 * a {@code Retry + Timeout + Bulkhead} pipeline; a quarter of them carry a signal cancelled at a random moment, some
 * async futures are cancelled by their caller, and every wait has a maximum. Optionally, every operation, listener,
 * handler and the timer may fail.
 *
 * <p>Each operation checks on entry that it runs for the first time and that no more than the highest limit ever set
 * run at once. {@link #runEpoch} runs workers until a deadline, waits for every call to end (nobody may wait
 * forever) and then checks that the bulkhead is quiet and exact.
 */
final class MixedWorkload {

    /** An {@link Error} thrown on purpose by an operation, a listener or a handler. */
    static final class InjectedError extends Error {
        InjectedError(String where) {
            super("injected in " + where, null, false, false);
        }
    }

    /** A {@link RuntimeException} thrown on purpose. */
    static final class InjectedException extends RuntimeException {
        InjectedException(String where) {
            super("injected in " + where, null, false, false);
        }
    }

    static final int LIMIT = 4;
    static final int RAISED_LIMIT = 6;
    static final int QUEUE = 16;

    final boolean faults;
    final Bulkhead bulkhead;
    final Policy pipeline;
    final ScheduledExecutorService completer;
    final AtomicLong admitted = new AtomicLong();
    final AtomicLong released = new AtomicLong();
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger maxRunning = new AtomicInteger();
    final AtomicLong calls = new AtomicLong();
    final AtomicLong completed = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong cancelled = new AtomicLong();
    final AtomicLong injected = new AtomicLong();
    final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

    MixedWorkload(boolean faults, Scheduler scheduler) {
        this(faults, scheduler, scheduler);
    }

    /**
     * @param faults whether operations, listeners, handlers and the timer may fail
     * @param scheduler the bulkhead's and the timeout's timer
     * @param retryScheduler the retry's timer: an asynchronous retry whose delay the timer drops never completes
     *     (see {@link Scheduler#of}), so a test that drops the bulkhead's timer's tasks gives the retry another
     */
    MixedWorkload(boolean faults, Scheduler scheduler, Scheduler retryScheduler) {
        this.faults = faults;
        this.completer = Executors.newScheduledThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "workload-completer");
            thread.setDaemon(true);
            return thread;
        });
        SplittableRandom faultRandom = new SplittableRandom(7);
        Bulkhead.Builder builder = Bulkhead.builder().name(faults ? "faulty" : "soak").maxConcurrency(LIMIT)
                .maxQueue(QUEUE).maxWait(Duration.ofMillis(2)).scheduler(scheduler)
                .listener(new BulkheadListener() {
                    @Override
                    public void admitted(long waitedNanos) {
                        admitted.incrementAndGet();
                    }

                    @Override
                    public void released(long executionNanos) {
                        released.incrementAndGet();
                    }
                });
        if (faults) {
            builder.listener(new BulkheadListener() {
                @Override
                public void admitted(long waitedNanos) {
                    maybeFail("listener.admitted");
                }

                @Override
                public void rejected(Rejection rejection) {
                    maybeFail("listener.rejected");
                }

                @Override
                public void cancelled(long waitedNanos) {
                    maybeFail("listener.cancelled");
                }

                @Override
                public void released(long executionNanos) {
                    maybeFail("listener.released");
                }
            }).onRejected(rejection -> maybeFail("overflow handler"));
        }
        this.bulkhead = builder.build();
        Retry.Builder retry = Retry.builder().handle(BulkheadRejectedException.class).maxRetries(2)
                .delay(Duration.ofNanos(50_000)).scheduler(retryScheduler);
        Timeout.Builder timeout = Timeout.builder().timeout(Duration.ofMillis(5)).scheduler(scheduler);
        if (faults) {
            retry.onRetry(event -> maybeFail("retry listener"));
            timeout.onTimeout(exception -> maybeFail("timeout listener"));
        }
        this.pipeline = Pipeline.of(retry.build(), timeout.build(), bulkhead);
    }

    private static void maybeFail(String where) {
        int dice = java.util.concurrent.ThreadLocalRandom.current().nextInt(6);
        if (dice == 0) {
            throw new InjectedError(where);
        }
        if (dice == 1) {
            throw new InjectedException(where);
        }
    }

    /**
     * Runs {@code workers} threads from {@code threads} that make calls until {@code seconds} have passed, while
     * another flips the limit; then waits for every call to end and checks the bulkhead is quiet and exact.
     */
    void runEpoch(ThreadFactory threads, int workers, long seconds, long seed) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        ConcurrentLinkedQueue<CompletableFuture<?>> outcomes = new ConcurrentLinkedQueue<>();
        List<Thread> started = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            SplittableRandom random = new SplittableRandom(seed * 1_000 + w);
            Thread worker = threads.newThread(() -> {
                List<CompletableFuture<?>> mine = new ArrayList<>();
                while (System.nanoTime() < deadline) {
                    oneCall(random, mine);
                    if (mine.size() > 2) {
                        // Keep a few async calls in flight per worker instead of flooding the queue.
                        mine.remove(0).handle((v, e) -> null).join();
                    }
                    Thread.interrupted(); // an interrupt aimed at this call must not leak into the next one
                }
                outcomes.addAll(mine);
            });
            worker.start();
            started.add(worker);
        }
        Thread limits = new Thread(() -> {
            SplittableRandom random = new SplittableRandom(seed);
            while (System.nanoTime() < deadline) {
                bulkhead.changeMaxConcurrency(random.nextBoolean() ? LIMIT : RAISED_LIMIT);
                if (random.nextInt(4) == 0 && !started.isEmpty()) {
                    started.get(random.nextInt(started.size())).interrupt();
                }
                sleepQuietly(1);
            }
            bulkhead.changeMaxConcurrency(LIMIT);
        }, "limits-and-interrupts");
        limits.start();

        for (Thread worker : started) {
            worker.join(TimeUnit.SECONDS.toMillis(seconds + 60));
            assertThat(worker.isAlive()).as(() -> "a worker still waits a minute after the deadline, at\n"
                    + stackOf(worker)).isFalse();
        }
        limits.join();
        CompletableFuture.allOf(outcomes.toArray(new CompletableFuture<?>[0])).handle((v, e) -> null)
                .get(1, TimeUnit.MINUTES);
        assertQuietAndExact();
    }

    private static String stackOf(Thread thread) {
        StringBuilder stack = new StringBuilder();
        for (StackTraceElement frame : thread.getStackTrace()) {
            stack.append("\tat ").append(frame).append('\n');
        }
        return stack.toString();
    }

    void assertQuietAndExact() {
        assertThat(unexpected).isEmpty();
        assertThat(maxRunning.get()).as("operations running at once").isLessThanOrEqualTo(RAISED_LIMIT);
        // An operation's slot is released after its stage completed; wait for the last releases to land.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> bulkhead.executingCount() == 0 && released.get() == admitted.get());
        assertThat(bulkhead.queuedCount()).isZero();
        BulkheadRaceTest.assertQuiet(bulkhead, LIMIT);
        assertThat(released.get()).as("every admission released exactly once").isEqualTo(admitted.get());
    }

    void shutdown() {
        completer.shutdownNow();
    }

    String summary() {
        return String.format("%d calls: %d completed, %d refused, %d cancelled, %d failed by injection;"
                + " %d admissions, most running at once %d", calls.get(), completed.get(), refused.get(),
                cancelled.get(), injected.get(), admitted.get(), maxRunning.get());
    }

    // ---------------------------------------------------------------------------------------------------------

    private void oneCall(SplittableRandom random, List<CompletableFuture<?>> outcomes) {
        calls.incrementAndGet();
        CancellationSignal signal = random.nextInt(4) == 0 ? CancellationSignal.create() : CancellationSignal.none();
        if (signal.canBeCancelled()) {
            try {
                completer.schedule(() -> signal.cancel(), random.nextInt(300), TimeUnit.MICROSECONDS);
            } catch (RejectedExecutionException shutDown) {
                signal.cancel();
            }
        }
        AtomicInteger runs = new AtomicInteger();
        boolean fail = faults && random.nextInt(5) == 0;
        try {
            switch (random.nextInt(8)) {
                case 0 -> {
                    bulkhead.call(() -> work(runs, fail), signal);
                    completed.incrementAndGet();
                }
                case 1 -> {
                    try (Permit permit = bulkhead.acquire(signal)) {
                        work(runs, fail);
                    }
                    completed.incrementAndGet();
                }
                case 2 -> {
                    Optional<Permit> permit = bulkhead.tryAcquire();
                    if (permit.isPresent()) {
                        try (Permit held = permit.get()) {
                            work(runs, fail);
                        }
                        completed.incrementAndGet();
                    } else {
                        refused.incrementAndGet();
                    }
                }
                case 3, 4 -> {
                    boolean later = random.nextBoolean();
                    int delay = random.nextInt(200);
                    CompletableFuture<Integer> result = bulkhead.callAsync(() -> asyncWork(runs, fail, later, delay),
                            signal);
                    if (random.nextInt(8) == 0) {
                        result.cancel(false);
                    }
                    outcomes.add(result.handle((value, failure) -> account(failure, runs, true)));
                }
                case 5 -> {
                    CompletableFuture<Permit> permit = bulkhead.acquireAsync(signal);
                    if (random.nextInt(8) == 0) {
                        permit.cancel(false);
                    }
                    outcomes.add(permit.handle((granted, failure) -> {
                        if (granted != null) {
                            try (granted) {
                                work(runs, fail);
                            } catch (Throwable thrown) {
                                return account(thrown, runs, false);
                            }
                        }
                        return account(failure, runs, true);
                    }));
                }
                case 6 -> {
                    pipeline.call(() -> work(runs, fail), signal);
                    completed.incrementAndGet();
                }
                default -> {
                    boolean later = random.nextBoolean();
                    int delay = random.nextInt(200);
                    CompletableFuture<Integer> result = pipeline.callAsync(
                            () -> asyncWork(runs, fail, later, delay), signal);
                    outcomes.add(result.handle((value, failure) -> account(failure, runs, true)));
                }
            }
        } catch (Throwable thrown) {
            account(thrown, runs, false);
        }
    }

    /** Counts one outcome; returns null so it can end a {@code handle}. */
    private Void account(Throwable failure, AtomicInteger runs, boolean async) {
        if (failure instanceof CompletionException && failure.getCause() != null) {
            failure = failure.getCause();
        }
        if (failure == null) {
            completed.incrementAndGet();
        } else if (failure instanceof InjectedError || failure instanceof InjectedException) {
            injected.incrementAndGet();
        } else if (failure instanceof BulkheadRejectedException || failure instanceof TimeoutExceededException
                || failure instanceof RejectedExecutionException) {
            refused.incrementAndGet();
            if (!async && failure instanceof BulkheadRejectedException && runs.get() != 0) {
                unexpected.add(new AssertionError("a refused call ran"));
            }
        } else if (failure instanceof CancellationException) {
            cancelled.incrementAndGet();
        } else {
            unexpected.add(failure);
        }
        return null;
    }

    private int work(AtomicInteger runs, boolean fail) {
        enter(runs);
        try {
            if (fail) {
                throw new InjectedError("operation");
            }
            return 1;
        } finally {
            running.decrementAndGet();
        }
    }

    private CompletableFuture<Integer> asyncWork(AtomicInteger runs, boolean fail, boolean later, int delayMicros) {
        enter(runs);
        if (fail && !later) {
            running.decrementAndGet();
            throw new InjectedError("async operation");
        }
        if (!later) {
            running.decrementAndGet();
            return CompletableFuture.completedFuture(1);
        }
        CompletableFuture<Integer> stage = new CompletableFuture<>();
        Runnable finish = () -> {
            running.decrementAndGet();
            if (fail) {
                stage.completeExceptionally(new InjectedError("async stage"));
            } else {
                stage.complete(1);
            }
        };
        try {
            completer.schedule(finish, delayMicros, TimeUnit.MICROSECONDS);
        } catch (RejectedExecutionException shutDown) {
            finish.run();
        }
        return stage;
    }

    private void enter(AtomicInteger runs) {
        if (runs.incrementAndGet() != 1) {
            unexpected.add(new AssertionError("an operation ran twice"));
        }
        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Platform threads, daemon, named. */
    static ThreadFactory platformThreads(String name) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Virtual threads (JDK 21+), reached reflectively since the tests compile for Java 17. */
    static ThreadFactory virtualThreads() throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
    }
}
