package dev.bulwark.grpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The drain's invariants: held until open, first action first, one at a time, in order, none stranded. */
class OrderedDrainTest {

    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final OrderedDrain drain = new OrderedDrain(failures::add, io.grpc.Context.ROOT);
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @Test
    void holdsActionsUntilOpenThenRunsTheFirstActionBeforeThemInOrder() {
        drain.submit(() -> ran.add("a"));
        drain.submit(() -> ran.add("b"));
        assertThat(ran).isEmpty();

        drain.open(() -> ran.add("first"));
        drain.submit(() -> ran.add("c"));

        assertThat(ran).containsExactly("first", "a", "b", "c");
    }

    @Test
    void aDiscardedDrainRunsNothing() {
        drain.submit(() -> ran.add("held"));
        drain.discard();
        drain.submit(() -> ran.add("later"));
        assertThat(ran).isEmpty();
    }

    @Test
    void aThrowingActionIsReportedAndTheRestStillRun() {
        IllegalStateException boom = new IllegalStateException("boom");
        drain.open(() -> { });
        drain.submit(() -> {
            throw boom;
        });
        drain.submit(() -> ran.add("after"));
        assertThat(failures).containsExactly(boom);
        assertThat(ran).containsExactly("after");
    }

    /**
     * Forced interleaving: while the opening thread is inside the first action, another thread submits. The
     * submitter must not run its action itself (that would run two actions at once); the drainer runs it right after.
     */
    @Test
    void anActionSubmittedWhileAnotherRunsIsRunByTheDrainerAfterIt() throws Exception {
        CountDownLatch insideFirst = new CountDownLatch(1);
        CountDownLatch submitted = new CountDownLatch(1);
        Thread opener = new Thread(() -> drain.open(() -> {
            ran.add("first:start");
            insideFirst.countDown();
            await(submitted);
            ran.add("first:end");
        }));
        opener.start();
        await(insideFirst);

        drain.submit(() -> ran.add("second on " + Thread.currentThread().getName()));
        submitted.countDown();
        opener.join(10_000);

        assertThat(ran).containsExactly("first:start", "first:end", "second on " + opener.getName());
    }

    /**
     * Forced interleaving of invariant (2): an action enqueued by a thread that read {@code open == false} just
     * before the gate opened is still run, by the opener.
     */
    @Test
    void anActionEnqueuedJustBeforeOpeningIsRunByTheOpener() {
        drain.submit(() -> ran.add("raced"));
        drain.open(() -> ran.add("first"));
        assertThat(ran).containsExactly("first", "raced");
    }

    @RepeatedTest(20)
    void manySubmittersNeverRunTwoActionsAtOnceAndLoseNone() throws Exception {
        int threads = 4;
        int perThread = 2_000;
        AtomicInteger active = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger count = new AtomicInteger();
        List<List<Integer>> seenPerThread = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<Integer> seen = new ArrayList<>();
            seenPerThread.add(seen);
            Thread worker = new Thread(() -> {
                await(start);
                for (int i = 0; i < perThread; i++) {
                    int value = i;
                    drain.submit(() -> {
                        if (active.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        seen.add(value); // unsynchronized on purpose: safe only if actions never overlap
                        count.incrementAndGet();
                        active.decrementAndGet();
                    });
                }
            });
            workers.add(worker);
            worker.start();
        }
        start.countDown();
        drain.open(() -> { });
        for (Thread worker : workers) {
            worker.join(30_000);
        }

        assertThat(overlaps).hasValue(0);
        assertThat(count).hasValue(threads * perThread);
        for (List<Integer> seen : seenPerThread) {
            assertThat(seen).hasSize(perThread).isSorted();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
