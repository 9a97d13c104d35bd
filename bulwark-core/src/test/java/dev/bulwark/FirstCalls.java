package dev.bulwark;

import dev.bulwark.testing.FreshJvm;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child program of {@link FirstCallsTest}: a fresh JVM's first calls, timed, as issue 37 measured them. Its
 * argument names the one scenario this JVM runs first ({@code refusal}, {@code perKey}, {@code interruptedBuild},
 * {@code queued} or {@code burst}), so that
 * each meets a cold JVM. Prints one {@code name=value} line per figure (times in microseconds), for the first
 * round and then for a second, warm round in the same JVM:
 * <ul>
 *   <li>{@code build}: the first {@code build()} of the JVM, then a later one;</li>
 *   <li>{@code refusal}: a refusal for a full queue (limit 1, queue 0);</li>
 *   <li>{@code perKey.*}: a per-key bulkhead's first call, then its first refusal for the partition limit;</li>
 *   <li>{@code interruptKept}, {@code refusalAfterInterruptedBuild}: the first build on an interrupted thread;</li>
 *   <li>{@code queued}: a call queued behind a permit that another thread releases 20 ms later (limit 1, queue 1,
 *       max wait 200 ms): it should return after about 20 ms;</li>
 *   <li>{@code burst.*}: 100 callers at once against 20 slots, a queue of 50 and a max wait of 200 ms, whose
 *       operations hold their slots until every other caller was refused (at most 2 s): 20 run, 30 are refused
 *       for a full queue at once, 50 time out;
 *       the counts, the slowest queue-full refusal and the latest and earliest wait timeout, and how many callers
 *       a loaded machine let arrive more than 150 ms after the start ({@code burst.lateArrivals}).</li>
 * </ul>
 */
public final class FirstCalls {

    private static final ScheduledExecutorService LATER = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "first-calls-releaser");
        thread.setDaemon(true);
        return thread;
    });

    private FirstCalls() {
    }

    /**
     * Runs both rounds.
     *
     * @param args the scenario: {@code refusal}, {@code queued} or {@code burst}
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        FreshJvm.watchdog(Duration.ofSeconds(30));
        // The scheduler that plays the other thread's release is a JDK one, started before anything is timed.
        LATER.schedule(() -> { }, 0, TimeUnit.MILLISECONDS).get();
        for (String round : new String[] {"cold", "warm"}) {
            switch (args[0]) {
                case "refusal":
                    refusal(round);
                    break;
                case "queued":
                    queued(round);
                    break;
                case "perKey":
                    perKey(round);
                    break;
                case "interruptedBuild":
                    interruptedBuild(round);
                    break;
                default:
                    burst(round);
            }
        }
        System.out.flush();
        System.exit(0);
    }

    private static void refusal(String round) {
        ThrowingSupplier<Integer, RuntimeException> operation = () -> 1;
        long started = System.nanoTime();
        Bulkhead refusing = Bulkhead.builder().name("refusing-" + round).maxConcurrency(1).maxQueue(0).build();
        print(round, "build", micros(started));

        refusing.tryAcquire().orElseThrow();
        started = System.nanoTime();
        try {
            refusing.call(operation);
        } catch (BulkheadRejectedException expected) {
            print(round, "refusal", micros(started));
        }
    }

    /** The first build on an interrupted thread: the flag is kept, and the rehearsal still ran (a fast refusal). */
    private static void interruptedBuild(String round) {
        ThrowingSupplier<Integer, RuntimeException> operation = () -> 1;
        Thread.currentThread().interrupt();
        Bulkhead refusing = Bulkhead.builder().name("interrupted-" + round).maxConcurrency(1).maxQueue(0).build();
        print(round, "interruptKept", Thread.interrupted() ? 1 : 0);
        refusing.tryAcquire().orElseThrow();
        long started = System.nanoTime();
        try {
            refusing.call(operation);
        } catch (BulkheadRejectedException expected) {
            print(round, "refusalAfterInterruptedBuild", micros(started));
        }
    }

    private static void perKey(String round) {
        ThrowingSupplier<Integer, RuntimeException> operation = () -> 1;
        PartitionedBulkhead<String> tenants = PartitionedBulkhead.<String>builder().name("tenants-" + round)
                .maxPartitions(1).build();
        long started = System.nanoTime();
        tenants.call("first", operation);
        print(round, "perKey.firstCall", micros(started));

        CompletableFuture<Integer> running = new CompletableFuture<>();
        tenants.callAsync("first", () -> running);
        started = System.nanoTime();
        try {
            tenants.call("second", operation);
        } catch (BulkheadRejectedException expected) {
            print(round, "perKey.partitionLimit", micros(started));
        }
        running.complete(1);
    }

    private static void queued(String round) {
        ThrowingSupplier<Integer, RuntimeException> operation = () -> 1;
        Bulkhead queueing = Bulkhead.builder().name("queueing-" + round).maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofMillis(200)).build();
        Permit held = queueing.tryAcquire().orElseThrow();
        long started = System.nanoTime();
        LATER.schedule((Runnable) held::close, 20, TimeUnit.MILLISECONDS);
        try {
            queueing.call(operation);
        } catch (BulkheadRejectedException timedOut) {
            print(round, "queuedTimedOut", 1);
        }
        print(round, "queued", micros(started));
    }

    private static void burst(String round) throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("burst-" + round).maxConcurrency(20).maxQueue(50)
                .maxWait(Duration.ofMillis(200)).build();
        int callers = 100;
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(callers);
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger queueFull = new AtomicInteger();
        AtomicInteger timedOut = new AtomicInteger();
        AtomicLong slowestQueueFull = new AtomicLong();
        AtomicLong latestTimeout = new AtomicLong();
        AtomicLong earliestTimeout = new AtomicLong(Long.MAX_VALUE);
        // No slot frees before the 80 others are refused (the backstop only bounds a failing run), so the outcome
        // counts do not depend on how late a loaded machine lets the callers arrive.
        CountDownLatch othersRefused = new CountDownLatch(callers - 20);
        ThrowingSupplier<Integer, InterruptedException> holdsItsSlot = () -> {
            ran.incrementAndGet();
            othersRefused.await(2, TimeUnit.SECONDS);
            return 1;
        };
        // A caller that a loaded machine lets arrive after a waiter may have timed out (150 ms after the start, 50 ms
        // before the first possible timeout, which is 200 ms after the first waiter queued) may find a queue place
        // freed by the timeout and wait instead of being refused for a full queue: such callers are counted apart.
        AtomicInteger lateArrivals = new AtomicInteger();
        long[] goNanos = new long[1];
        for (int i = 0; i < callers; i++) {
            Thread caller = new Thread(() -> {
                try {
                    go.await();
                    long started = System.nanoTime();
                    if (started - goNanos[0] > TimeUnit.MILLISECONDS.toNanos(150)) {
                        lateArrivals.incrementAndGet();
                    }
                    try {
                        bulkhead.call(holdsItsSlot);
                    } catch (BulkheadRejectedException refused) {
                        long took = micros(started);
                        othersRefused.countDown();
                        if (refused.rejection().reason() == Rejection.Reason.QUEUE_FULL) {
                            queueFull.incrementAndGet();
                            slowestQueueFull.accumulateAndGet(took, Math::max);
                        } else if (refused.rejection().reason() == Rejection.Reason.WAIT_TIMEOUT) {
                            timedOut.incrementAndGet();
                            latestTimeout.accumulateAndGet(took, Math::max);
                            earliestTimeout.accumulateAndGet(took, Math::min);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "burst-" + i);
            caller.setDaemon(true);
            caller.start();
        }
        goNanos[0] = System.nanoTime();
        go.countDown();
        done.await();
        print(round, "burst.ran", ran.get());
        print(round, "burst.queueFull", queueFull.get());
        print(round, "burst.timedOut", timedOut.get());
        print(round, "burst.lateArrivals", lateArrivals.get());
        print(round, "burst.slowestQueueFull", slowestQueueFull.get());
        print(round, "burst.latestTimeout", latestTimeout.get());
        print(round, "burst.earliestTimeout", timedOut.get() == 0 ? 0 : earliestTimeout.get());
    }

    private static long micros(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1000;
    }

    private static void print(String round, String figure, long value) {
        System.out.println(round + "." + figure + "=" + value);
    }
}
