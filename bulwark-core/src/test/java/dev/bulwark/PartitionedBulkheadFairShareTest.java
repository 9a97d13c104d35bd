package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.bulwark.testing.CountingListener;
import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import dev.bulwark.testing.Threads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 16 item 3: weighted fair shares of the global limit across the keys of a {@link PartitionedBulkhead}. Each
 * test names the rule of docs/per-key.md ("Fair shares") it checks.
 */
class PartitionedBulkheadFairShareTest {

    /** Async calls whose operations stay running until the test completes them; records the start order. */
    private static final class Calls {
        final PartitionedBulkhead<String> partitioned;
        final List<String> started = Collections.synchronizedList(new ArrayList<>());
        final Map<String, CompletableFuture<String>> running = new ConcurrentHashMap<>();
        final Map<String, CompletableFuture<String>> results = new ConcurrentHashMap<>();

        Calls(PartitionedBulkhead<String> partitioned) {
            this.partitioned = partitioned;
        }

        void submit(String key, String id) {
            results.put(id, partitioned.callAsync(key, () -> {
                started.add(id);
                CompletableFuture<String> work = new CompletableFuture<>();
                running.put(id, work);
                return work;
            }));
        }

        void finish(String id) {
            running.get(id).complete(id);
            assertThat(results.get(id)).isCompletedWithValue(id);
        }
    }

    private static Bulkhead global(int limit) {
        return Bulkhead.builder().name("global").maxConcurrency(limit).maxQueue(100).build();
    }

    private static PartitionedBulkhead.Builder<String> fair(Bulkhead global) {
        return PartitionedBulkhead.<String>builder().name("tenants").globalLimit(global)
                .defaultConfig(Bulkhead.builder().maxConcurrency(10).maxQueue(100).config());
    }

    @Test
    void aKeyAboveItsShareGetsNoFreedSlotWhileAKeyBelowItsShareWaits() {
        Bulkhead global = global(4);
        Calls calls = new Calls(fair(global).fairShares().build());
        for (int i = 0; i < 8; i++) {
            calls.submit("noisy", "n" + i);
        }
        calls.submit("quiet", "q0");
        calls.submit("quiet", "q1");
        assertThat(calls.started).containsExactly("n0", "n1", "n2", "n3");
        assertThat(calls.partitioned.fairQueuedCount()).isEqualTo(6);

        calls.finish("n0");
        calls.finish("n1");
        assertThat(calls.started).as("the quiet key, below its share of 2, gets both freed slots although the"
                + " noisy key's calls came first").containsExactly("n0", "n1", "n2", "n3", "q0", "q1");
        calls.finish("n2");
        assertThat(calls.started).as("at equal shares (2 and 2) with only the noisy key waiting, it gets the slot")
                .endsWith("q1", "n4");
        assertThat(global.executingCount()).isEqualTo(4);
    }

    @Test
    void globalFifoIsTheDefaultAndServesByArrival() {
        Bulkhead global = global(4);
        Calls calls = new Calls(fair(global).build());
        for (int i = 0; i < 8; i++) {
            calls.submit("noisy", "n" + i);
        }
        calls.submit("quiet", "q0");
        calls.finish("n0");
        assertThat(calls.started).containsExactly("n0", "n1", "n2", "n3", "n4");
    }

    @Test
    void sharesFollowTheWeightsOfTheActiveKeys() {
        Bulkhead global = global(4);
        Calls calls = new Calls(fair(global).fairShares(key -> key.equals("heavy") ? 3 : 1).build());
        for (int i = 0; i < 4; i++) {
            calls.submit("light", "l" + i); // the light key borrows every slot while nobody else wants one
        }
        for (int i = 0; i < 5; i++) {
            calls.submit("heavy", "h" + i);
            calls.submit("light", "l" + (4 + i));
        }
        for (int i = 0; i < 4; i++) {
            calls.finish("l" + i);
        }
        assertThat(calls.started).as("freed slots go to the key with the fewest slots per weight: heavy 0/3, 1/3"
                + " and 2/3 before light's 3/1, 2/1 and 1/1; then light 0/1 before heavy 3/3")
                .containsExactly("l0", "l1", "l2", "l3", "h0", "h1", "h2", "l4");
        assertThat(global.executingCount()).isEqualTo(4);
    }

    @Test
    void idleShareIsLentToABusyKeyAndComesBackAsItsCallsFinish() {
        Bulkhead global = global(4);
        Calls calls = new Calls(fair(global).fairShares().build());
        calls.submit("quiet", "q0");
        calls.submit("busy", "b0");
        calls.submit("busy", "b1");
        calls.submit("busy", "b2");
        assertThat(calls.started).as("busy holds 3 of 4, above its share of 2: nobody else waits")
                .containsExactly("q0", "b0", "b1", "b2");
        calls.submit("busy", "b3");
        calls.submit("quiet", "q1");
        calls.finish("b0");
        assertThat(calls.started).as("busy (2 held) and quiet (1 held) wait: quiet is further below its share")
                .endsWith("q1");
        calls.finish("b1");
        assertThat(calls.started).endsWith("q1", "b3");
    }

    @Test
    void waitingForAGlobalSlotFollowsTheGlobalQueueLimitAndMaximumWait() {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(1)
                .maxWait(Duration.ofSeconds(30)).build();
        List<Rejection> told = Collections.synchronizedList(new ArrayList<>());
        Calls calls = new Calls(fair(global).fairShares().ticker(ticker).scheduler(scheduler)
                .onRejected(told::add).build());
        calls.submit("a", "a0");
        calls.submit("b", "b0");
        calls.submit("c", "c0");

        Throwable full = catchThrowable(() -> calls.results.get("c0").join());
        assertThat(full).isInstanceOf(CompletionException.class).cause().isInstanceOf(BulkheadRejectedException.class);
        Rejection queueFull = ((BulkheadRejectedException) full.getCause()).rejection();
        assertThat(queueFull.reason()).isEqualTo(Rejection.Reason.QUEUE_FULL);
        assertThat(queueFull.bulkheadName()).isEqualTo("global");

        scheduler.advance(Duration.ofSeconds(30));
        Throwable timedOut = catchThrowable(() -> calls.results.get("b0").join());
        Rejection timeout = ((BulkheadRejectedException) timedOut.getCause()).rejection();
        assertThat(timeout.reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT);
        assertThat(timeout.waited()).isEqualTo(Duration.ofSeconds(30));
        assertThat(told).extracting(Rejection::reason)
                .containsExactly(Rejection.Reason.QUEUE_FULL, Rejection.Reason.WAIT_TIMEOUT);
        assertThat(calls.partitioned.fairQueuedCount()).isZero();
        assertThat(calls.partitioned.partition("b").orElseThrow().executingCount())
                .as("the refused call gave its key's slot back").isZero();
        await().untilAsserted(() -> assertThat(global.queuedCount()).as("no pump left in the global queue").isZero());
        calls.finish("a0");
    }

    /**
     * On the shared scheduler a fair-share waiter is its own node of the timing wheel (issue 39: every bulkhead's
     * waiters arm their early ends one way, {@code WaiterFate.armTimeout}): its maximum wait still ends it, and a
     * waiter that left the queue by a cancel is not timed out later.
     */
    @Test
    void onTheSharedWheelAFairShareWaitTimesOutAndACancelledOneIsNotTimedOutLater() {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(10)
                .maxWait(Duration.ofMillis(50)).build();
        List<Rejection> told = Collections.synchronizedList(new ArrayList<>());
        Calls calls = new Calls(fair(global).fairShares().onRejected(told::add).build());
        calls.submit("a", "a0");
        calls.submit("b", "b0");
        calls.submit("c", "c0");
        assertThat(calls.results.get("c0").cancel(false)).isTrue();

        assertThat(calls.results.get("b0")).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class).havingCause()
                .isInstanceOfSatisfying(BulkheadRejectedException.class, refused ->
                        assertThat(refused.rejection().reason()).isEqualTo(Rejection.Reason.WAIT_TIMEOUT));
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(told).extracting(Rejection::reason)
                        .containsExactly(Rejection.Reason.WAIT_TIMEOUT));
        assertThat(calls.partitioned.fairQueuedCount()).isZero();
        calls.finish("a0");
        assertThat(calls.started).containsExactly("a0");
    }

    @Test
    void aGlobalLimitWithoutAQueueRefusesAtOnce() {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).build();
        Calls calls = new Calls(fair(global).fairShares().build());
        calls.submit("a", "a0");
        assertThatThrownBy(() -> calls.partitioned.call("b", () -> "b"))
                .isInstanceOfSatisfying(BulkheadRejectedException.class,
                        e -> assertThat(e.rejection().reason()).isEqualTo(Rejection.Reason.QUEUE_FULL));
        calls.finish("a0");
        assertThat(calls.partitioned.call("b", () -> "b")).isEqualTo("b");
    }

    @Test
    void aCallerGivingUpLeavesTheFairQueueAndItsSlotsGoBack() throws Exception {
        Bulkhead global = global(1);
        Calls calls = new Calls(fair(global).fairShares().build());
        calls.submit("a", "a0");
        calls.submit("b", "b0");
        CancellationSignal signal = CancellationSignal.create();
        FutureTask<String> blocked = Threads.start("blocked", () -> calls.partitioned.call("c", () -> "c", signal));
        await().until(() -> calls.partitioned.fairQueuedCount() == 2);

        calls.results.get("b0").cancel(false);
        signal.cancel();
        assertThat(catchThrowable(blocked::get)).cause().isInstanceOf(CancellationException.class);
        assertThat(calls.partitioned.fairQueuedCount()).isZero();
        assertThat(calls.partitioned.partition("b").orElseThrow().executingCount()).isZero();
        assertThat(calls.partitioned.partition("c").orElseThrow().executingCount()).isZero();
        await().untilAsserted(() -> assertThat(global.queuedCount()).isZero());

        calls.finish("a0");
        assertThat(calls.started).containsExactly("a0");
        assertThat(global.executingCount()).isZero();
        assertThat(calls.partitioned.call("d", () -> "d")).isEqualTo("d");
    }

    @Test
    void anInterruptedWaiterIsCancelledAndKeepsItsInterruptStatus() throws Exception {
        Bulkhead global = global(1);
        Calls calls = new Calls(fair(global).fairShares().build());
        calls.submit("a", "a0");
        AtomicReference<Boolean> flagKept = new AtomicReference<>();
        FutureTask<Object> blocked = Threads.start("interrupted-waiter", () -> {
            try {
                return calls.partitioned.call("b", () -> "b");
            } catch (CancellationException e) {
                flagKept.set(Thread.currentThread().isInterrupted());
                throw e;
            }
        });
        await().until(() -> calls.partitioned.fairQueuedCount() == 1);
        Thread thread = threadNamed("interrupted-waiter");
        thread.interrupt();
        assertThat(catchThrowable(blocked::get)).cause().isInstanceOf(CancellationException.class)
                .cause().isInstanceOf(InterruptedException.class);
        assertThat(flagKept.get()).isTrue();
        assertThat(calls.partitioned.fairQueuedCount()).isZero();
        calls.finish("a0");
        assertThat(global.executingCount()).isZero();
    }

    @Test
    void badShareWeightsAndAMissingGlobalLimitAreRefusedNamingTheParameter() {
        assertThatThrownBy(() -> PartitionedBulkhead.<String>builder().fairShares(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("shareWeight");
        assertThatThrownBy(() -> PartitionedBulkhead.<String>builder().fairShares().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("globalLimit");
        PartitionedBulkhead<String> partitioned = fair(global(2)).fairShares(key -> key.length() - 1).build();
        assertThatThrownBy(() -> partitioned.call("a", () -> "a"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shareWeight");
        assertThat(partitioned.partitionCount()).as("no place used").isZero();
        assertThat(partitioned.call("ab", () -> "ab")).isEqualTo("ab");
    }

    /**
     * The pump is no caller: its timeouts in the global queue (then it starts again) and its cancellation (nobody
     * waits any more) reach neither the global bulkhead's overflow handler nor its listeners; each waiting call's
     * refusal goes to the partitioned bulkhead's handler, once.
     */
    @Test
    void theGlobalBulkheadsHandlerAndListenersHearNothingOfThePump() {
        FakeTicker globalTicker = new FakeTicker();
        ManualScheduler globalTimer = new ManualScheduler(globalTicker);
        List<Rejection> globalTold = Collections.synchronizedList(new ArrayList<>());
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(10)
                .maxWait(Duration.ofMillis(50)).ticker(globalTicker).scheduler(globalTimer)
                .onRejected(globalTold::add).build();
        CountingListener globalEvents = new CountingListener();
        global.addListener(globalEvents);
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        List<Rejection> told = Collections.synchronizedList(new ArrayList<>());
        PartitionedBulkhead<String> partitioned = fair(global).fairShares().ticker(ticker).scheduler(scheduler)
                .onRejected(told::add).build();
        Permit held = global.acquire(); // another user of the global bulkhead holds its only slot
        List<CompletableFuture<String>> waiting = new ArrayList<>();
        for (String key : List.of("k0", "k1", "k0")) {
            waiting.add(partitioned.callAsync(key, () -> CompletableFuture.completedFuture(key)));
        }
        assertThat(global.queuedCount()).as("the pump").isEqualTo(1);

        globalTimer.advance(Duration.ofMillis(50)); // the pump times out in the global queue and starts again
        assertThat(global.queuedCount()).as("the restarted pump").isEqualTo(1);
        scheduler.advance(Duration.ofMillis(50)); // every waiting call times out: the pump is cancelled

        assertThat(waiting).allSatisfy(call -> assertThat(catchThrowable(call::join)).cause()
                .isInstanceOf(BulkheadRejectedException.class));
        assertThat(told).extracting(Rejection::reason).containsExactly(Rejection.Reason.WAIT_TIMEOUT,
                Rejection.Reason.WAIT_TIMEOUT, Rejection.Reason.WAIT_TIMEOUT);
        await().untilAsserted(() -> assertThat(global.queuedCount()).isZero());
        assertThat(globalTold).as("the global handler").isEmpty();
        assertThat(globalEvents.rejected).as("global listener: rejected").hasValue(0);
        assertThat(globalEvents.cancelled).as("global listener: cancelled").hasValue(0);

        CompletableFuture<String> late = partitioned.callAsync("k1", () -> CompletableFuture.completedFuture("late"));
        held.close();
        assertThat(late.join()).isEqualTo("late");
        assertThat(global.executingCount()).isZero();
        assertThat(globalTold).isEmpty();
        assertThat(globalEvents.rejected).hasValue(0);
    }

    @Test
    void aPumpRefusedByAFullGlobalQueueIsToldOnlyToThePartitionedHandlerOncePerWaitingCall() {
        List<Rejection> globalTold = Collections.synchronizedList(new ArrayList<>());
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(1).maxQueue(1)
                .onRejected(globalTold::add).build();
        List<Rejection> told = Collections.synchronizedList(new ArrayList<>());
        PartitionedBulkhead<String> partitioned = fair(global).fairShares().onRejected(told::add).build();
        Permit held = global.acquire();
        CompletableFuture<Permit> otherUser = global.acquireAsync(); // fills the global queue

        CompletableFuture<String> call = partitioned.callAsync("k", () -> CompletableFuture.completedFuture("k"));

        assertThat(catchThrowable(call::join)).cause().isInstanceOf(BulkheadRejectedException.class);
        assertThat(told).extracting(Rejection::reason).containsExactly(Rejection.Reason.QUEUE_FULL);
        assertThat(globalTold).as("the pump's refusal is no call's").isEmpty();
        held.close();
        otherUser.join().close();
        assertThat(global.executingCount()).isZero();
    }

    @Test
    void aShareWeightThatThrowsAnErrorFailsTheAsyncCallsFutureInsteadOfThrowing() {
        StackOverflowError broken = new StackOverflowError("shareWeight blew up");
        PartitionedBulkhead<String> partitioned = fair(global(2)).fairShares(key -> {
            throw broken;
        }).build();
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<String> call = partitioned.callAsync("k", () -> {
            ran.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        });
        assertThat(call).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                .havingCause().isSameAs(broken);
        assertThat(ran).hasValue(0);
        assertThat(partitioned.partitionCount()).as("no place used").isZero();
    }

    @Test
    void manyThreadsOnWeightedKeysNeverExceedTheGlobalLimitAndLeaveNothingBehind() throws Exception {
        Bulkhead global = Bulkhead.builder().name("global").maxConcurrency(3).maxQueue(1_000).build();
        PartitionedBulkhead<Integer> partitioned = PartitionedBulkhead.<Integer>builder().globalLimit(global)
                .fairShares(key -> key + 1)
                .defaultConfig(Bulkhead.builder().maxConcurrency(3).maxQueue(1_000).config()).build();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger[] perKey = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        List<FutureTask<Integer>> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int key = t % 4;
            threads.add(Threads.start("caller-" + t, () -> {
                int done = 0;
                for (int i = 0; i < 300; i++) {
                    CancellationSignal signal = CancellationSignal.create();
                    if (i % 7 == 0) {
                        signal.cancel(); // some give up before or while waiting
                    }
                    try {
                        if (i % 2 == 0) {
                            partitioned.run(key, () -> work(running, maxRunning, perKey[key]), signal);
                        } else {
                            partitioned.callAsync(key, () -> {
                                work(running, maxRunning, perKey[key]);
                                return CompletableFuture.completedFuture(null);
                            }, signal).join();
                        }
                        done++;
                    } catch (CancellationException | CompletionException expected) {
                        // cancelled: counted by the invariants below
                    }
                }
                return done;
            }));
        }
        int done = 0;
        for (FutureTask<Integer> thread : threads) {
            done += thread.get();
        }
        assertThat(done).isPositive();
        assertThat(maxRunning.get()).isLessThanOrEqualTo(3);
        assertThat(global.executingCount()).isZero();
        assertThat(partitioned.fairQueuedCount()).isZero();
        await().untilAsserted(() -> assertThat(global.queuedCount()).isZero());
        for (Bulkhead partition : partitioned.partitions().values()) {
            assertThat(partition.executingCount()).isZero();
            assertThat(partition.queuedCount()).isZero();
        }
        assertThat(partitioned.call(0, () -> 0)).isZero();
    }

    private static void work(AtomicInteger running, AtomicInteger maxRunning, AtomicInteger mine) {
        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        mine.incrementAndGet();
        Thread.yield();
        running.decrementAndGet();
    }

    static Thread threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow();
    }
}
