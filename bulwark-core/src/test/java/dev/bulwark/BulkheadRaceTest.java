package dev.bulwark;

import static dev.bulwark.testing.Threads.startParked;
import static dev.bulwark.testing.Threads.startQueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.bulwark.testing.CapturingScheduler;
import dev.bulwark.testing.GatedTicker;
import dev.bulwark.testing.Rounds;
import dev.bulwark.testing.Threads.Parked;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Forced interleavings of the races peers shipped bugs in. Each test stops one thread at a known point inside the
 * bulkhead (in a {@link GatedTicker} read, a listener callback or a cancellation listener), does the racing action
 * on another thread, then lets the first go on, and checks that every slot is used once and released once.
 *
 * <p>Where the bulkhead reads its ticker (no listener attached): an async waiter's grant is delivered by
 * {@code startGranted}, whose only read comes right after the grant's compare-and-set and before it checks whether
 * the caller gave up; an async timer task reads it right after its own CAS and the unlink, before it fails the
 * future; a timed sync waiter reads it once per wake-up to test its deadline, then once more when it leaves. The
 * windows with no hook (between a canceller's CAS and its unlink, say) are model-checked by
 * {@link BulkheadLinearizabilityTest}.
 */
class BulkheadRaceTest {

    private final GatedTicker ticker = new GatedTicker();
    private final CapturingScheduler scheduler = new CapturingScheduler();
    private final List<Rejection> rejections = new CopyOnWriteArrayList<>();

    private Bulkhead.Builder builder() {
        return Bulkhead.builder().ticker(ticker).scheduler(scheduler).onRejected(rejections::add);
    }

    // -------------------------------------------------------------------------------------------------------------
    // Grant versus timeout

    @Test
    @DisplayName("grant vs timeout (Failsafe #393, .NET #64078): the timer fires while a grant is delivered")
    void anAsyncTimerFiringWhileTheGrantIsDeliveredLosesAndTheWaiterRuns() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofSeconds(1)).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger runs = new AtomicInteger();
        CompletableFuture<Integer> waiter = bulkhead.callAsync(() -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(7);
        });
        Thread releaser = new Thread(holder::close, "releaser");
        ticker.closeOn(releaser, 0);
        releaser.start();
        ticker.awaitArrival();

        // The grant's CAS is done; the timer task had started before the grant cancelled it.
        scheduler.task(0).run();
        assertThat(waiter).isNotDone();
        ticker.open();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(waiter).isCompletedWithValue(7);
        assertThat(runs).hasValue(1);
        assertThat(rejections).isEmpty();
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("grant vs timeout (Failsafe #393, .NET #64078): a slot freed while the timeout completes goes on")
    void aSlotFreedWhileAnAsyncTimeoutCompletesGoesToTheNextWaiter() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).maxWait(Duration.ofSeconds(1)).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger firstRuns = new AtomicInteger();
        CompletableFuture<Integer> first = bulkhead.callAsync(() -> {
            firstRuns.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        });
        CompletableFuture<Integer> second = bulkhead.callAsync(() -> CompletableFuture.completedFuture(2));
        Thread timer = new Thread(scheduler.task(0), "timer");
        ticker.closeOn(timer, 0);
        timer.start();
        ticker.awaitArrival();

        // The first waiter timed out and left the queue, but its future is not failed yet.
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        assertThat(first).isNotDone();
        holder.close();
        assertThat(second).isCompletedWithValue(2);
        ticker.open();
        timer.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(catchThrowable(first::join)).hasCauseInstanceOf(BulkheadRejectedException.class);
        assertThat(firstRuns).hasValue(0);
        assertThat(rejections).extracting(Rejection::reason).containsExactly(Rejection.Reason.WAIT_TIMEOUT);
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("grant vs timeout (Failsafe #393): a grant between the sync waiter's clock read and its CAS wins")
    void aSyncWaiterGrantedAfterReadingAPassedDeadlineRunsInsteadOfTimingOut() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofHours(1)).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger runs = new AtomicInteger();
        Parked<Integer> waiter = startParked(bulkhead, "waiter", () -> bulkhead.call(runs::incrementAndGet));
        ticker.closeOn(waiter.thread(), 0);
        ticker.advance(Duration.ofHours(1));
        LockSupport.unpark(waiter.thread());
        ticker.awaitArrival();

        // The waiter has read a clock past its deadline but not yet given up: the grant lands now.
        holder.close();
        ticker.open();

        assertThat(waiter.outcome().get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(rejections).isEmpty();
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("grant vs timeout (Failsafe #393): a slot freed right after a sync waiter timed out goes on")
    void aSlotFreedRightAfterASyncWaiterTimedOutGoesToTheNextWaiter() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).maxWait(Duration.ofHours(1)).build();
        Permit holder = bulkhead.acquire();
        AtomicInteger runs = new AtomicInteger();
        Parked<Integer> waiter = startParked(bulkhead, "waiter", () -> bulkhead.call(runs::incrementAndGet));
        CompletableFuture<Integer> next = bulkhead.callAsync(() -> CompletableFuture.completedFuture(2));
        // Skip the deadline check (it gives up and unlinks), stop at the read of the time waited.
        ticker.closeOn(waiter.thread(), 1);
        ticker.advance(Duration.ofHours(1));
        LockSupport.unpark(waiter.thread());
        ticker.awaitArrival();

        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        holder.close();
        assertThat(next).isCompletedWithValue(2);
        ticker.open();

        Throwable failure = catchThrowable(() -> waiter.outcome().get(10, TimeUnit.SECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(BulkheadRejectedException.class);
        assertThat(runs).hasValue(0);
        assertThat(rejections).extracting(Rejection::reason).containsExactly(Rejection.Reason.WAIT_TIMEOUT);
        assertQuiet(bulkhead, 1);
    }

    // -------------------------------------------------------------------------------------------------------------
    // Grant versus cancellation

    @Test
    @DisplayName("grant vs cancel (.NET #77180, #90810): the signal is cancelled while a grant is delivered")
    void aSignalCancelledWhileTheGrantIsDeliveredPassesTheSlotOn() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).build();
        Permit holder = bulkhead.acquire();
        CancellationSignal signal = CancellationSignal.create();
        AtomicInteger cancelledRuns = new AtomicInteger();
        CompletableFuture<Integer> cancelled = bulkhead.callAsync(() -> {
            cancelledRuns.incrementAndGet();
            return CompletableFuture.completedFuture(1);
        }, signal);
        CompletableFuture<Integer> next = bulkhead.callAsync(() -> CompletableFuture.completedFuture(2));
        Thread releaser = new Thread(holder::close, "releaser");
        ticker.closeOn(releaser, 0);
        releaser.start();
        ticker.awaitArrival();

        // The cancellation lost the CAS to the grant, but the delivery has not started: the cancel gives the slot
        // back itself, before it returns, so the next waiter has it at once and the delivery finds nothing to do.
        assertThat(signal.cancel()).isTrue();
        assertThat(cancelled.handle((value, failure) -> failure).join()).isInstanceOf(CancellationException.class);
        assertThat(next).isCompletedWithValue(2);
        ticker.open();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(cancelledRuns).hasValue(0);
        assertThat(next).isCompletedWithValue(2);
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("grant vs cancel (.NET #64078, Resilience4j #263): the future is cancelled while a grant is delivered")
    void aFutureCancelledWhileTheGrantIsDeliveredPassesTheSlotOnOnce() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> cancelled = bulkhead.acquireAsync();
        CompletableFuture<Permit> next = bulkhead.acquireAsync();
        Thread releaser = new Thread(holder::close, "releaser");
        ticker.closeOn(releaser, 0);
        releaser.start();
        ticker.awaitArrival();

        assertThat(cancelled.cancel(false)).isTrue();
        assertThat(next).as("the cancel gave the undelivered slot back before it returned").isCompleted();
        ticker.open();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(next).isCompleted();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        next.join().close();
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("grant vs cancel (Resilience4j #263 double release): cancelled after the check, before the permit")
    void aPermitFutureCancelledJustBeforeThePermitArrivesReleasesTheSlotExactlyOnce() {
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger released = new AtomicInteger();
        AtomicReference<CompletableFuture<Permit>> toCancel = new AtomicReference<>();
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).listener(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                admitted.incrementAndGet();
                // Runs on the releasing thread after it checked the caller still wants the slot, before the permit
                // is handed over: the caller gives up exactly here.
                CompletableFuture<Permit> future = toCancel.getAndSet(null);
                if (future != null) {
                    future.cancel(false);
                }
            }

            @Override
            public void released(long executionNanos) {
                released.incrementAndGet();
            }
        }).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> cancelled = bulkhead.acquireAsync();
        CompletableFuture<Permit> next = bulkhead.acquireAsync();
        toCancel.set(cancelled);

        holder.close();

        assertThat(cancelled).isCancelled();
        assertThat(next).isCompleted();
        next.join().close();
        assertThat(released).hasValue(admitted.get()).hasValue(3);
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("grant vs cancel (.NET #90810): a sync waiter granted by an earlier cancellation listener passes on")
    void aSyncWaiterGrantedAtTheInstantItsSignalIsCancelledPassesTheSlotOn() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).build();
        Permit holder = bulkhead.acquire();
        CancellationSignal signal = CancellationSignal.create();
        // Listeners run in registration order, on the cancelling thread: this one frees the slot, which the
        // bulkhead grants to the waiter before the waiter's own listener (registered later) can give up.
        signal.onCancel(holder::close);
        AtomicInteger runs = new AtomicInteger();
        FutureTask<Integer> waiter = startQueued(bulkhead, "waiter",
                () -> bulkhead.call(runs::incrementAndGet, signal));
        CountDownLatch nextRunning = new CountDownLatch(1);
        CountDownLatch nextMayFinish = new CountDownLatch(1);
        FutureTask<String> next = startQueued(bulkhead, "next", () -> bulkhead.call(() -> {
            nextRunning.countDown();
            nextMayFinish.await();
            return "next";
        }));

        signal.cancel();

        assertThat(nextRunning.await(10, TimeUnit.SECONDS)).as("the slot was passed on").isTrue();
        assertThat(catchThrowable(() -> waiter.get(10, TimeUnit.SECONDS)))
                .hasCauseInstanceOf(CancellationException.class);
        assertThat(runs).hasValue(0);
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        nextMayFinish.countDown();
        assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("next");
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("grant vs interrupt (.NET #77180): interrupted and granted at once, in either order, never leaks")
    void anInterruptAtTheInstantOfTheGrantNeverLeaksNorRunsTheOperation() throws Exception {
        for (int round = 0; round < Rounds.of(200); round++) {
            Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(2).build();
            Permit holder = bulkhead.acquire();
            AtomicInteger runs = new AtomicInteger();
            AtomicReference<Boolean> interruptKept = new AtomicReference<>();
            Parked<Throwable> waiter = startParked(bulkhead, "waiter", () -> {
                Throwable thrown = catchThrowable(() -> bulkhead.call(runs::incrementAndGet));
                interruptKept.set(Thread.interrupted());
                return thrown;
            });

            waiter.thread().interrupt();
            holder.close();

            Throwable thrown = waiter.outcome().get(10, TimeUnit.SECONDS);
            // Either the interrupt won (the slot went free) or the grant did and the waiter handed it back.
            assertThat(thrown).isInstanceOf(CancellationException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(interruptKept.get()).isTrue();
            assertThat(runs).hasValue(0);
            assertQuiet(bulkhead, 1);
        }
    }

    @Test
    @DisplayName("leak (Failsafe #393): a release meets a waiter that gave up but is not yet unlinked")
    void aReleaseThatMeetsAWaiterBetweenItsCancellationAndItsUnlinkPassesTheSlotOn() throws Exception {
        for (boolean sync : new boolean[] {true, false}) {
            Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(1).build();
            Permit holder = bulkhead.acquire();
            CancellationSignal signal = CancellationSignal.create();
            AtomicInteger runs = new AtomicInteger();
            FutureTask<Object> waiter;
            if (sync) {
                // Parked only after registering on the signal.
                waiter = startParked(bulkhead, "sync-waiter",
                        () -> (Object) bulkhead.call(runs::incrementAndGet, signal)).outcome();
            } else {
                bulkhead.callAsync(() -> {
                    runs.incrementAndGet();
                    return CompletableFuture.completedFuture(1);
                }, signal);
                waiter = null;
            }
            // White box: hold the bulkhead's own lock, so that the canceller wins its CAS and then waits to unlink.
            ReentrantLock lock = bulkheadLock(bulkhead);
            lock.lock();
            Thread canceller = new Thread(signal::cancel, "canceller");
            try {
                canceller.start();
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                        .until(() -> lock.hasQueuedThread(canceller));
                // The waiter is CANCELLED but still linked: the release (re-entering the lock) must skip it.
                holder.close();
            } finally {
                lock.unlock();
            }
            canceller.join(TimeUnit.SECONDS.toMillis(10));
            if (waiter != null) {
                assertThat(catchThrowable(() -> waiter.get(10, TimeUnit.SECONDS)))
                        .hasCauseInstanceOf(CancellationException.class);
            }
            assertThat(runs).hasValue(0);
            assertQuiet(bulkhead, 1);
        }
    }

    private static ReentrantLock bulkheadLock(Bulkhead bulkhead) throws ReflectiveOperationException {
        // The lock belongs to the bulkhead's slot queue, its field "slots".
        java.lang.reflect.Field slotsField = bulkhead.getClass().getDeclaredField("slots");
        slotsField.setAccessible(true);
        Object slots = slotsField.get(bulkhead);
        java.lang.reflect.Field lockField = slots.getClass().getDeclaredField("lock");
        lockField.setAccessible(true);
        return (ReentrantLock) lockField.get(slots);
    }

    // -------------------------------------------------------------------------------------------------------------
    // Release versus limit change

    @Test
    @DisplayName("release vs limit change (Resilience4j #979): lowering during a release "
            + "neither blocks nor over-admits")
    void loweringTheLimitWhileASlotIsBeingReleasedRetiresThatSlot() throws Exception {
        PausingListener listener = new PausingListener();
        Bulkhead bulkhead = builder().maxConcurrency(2).maxQueue(1).listener(listener).build();
        Permit first = bulkhead.acquire();
        Permit second = bulkhead.acquire();
        CompletableFuture<Permit> waiter = bulkhead.acquireAsync();
        Thread releaser = new Thread(first::close, "releaser");
        listener.pauseReleaseOn(releaser);
        releaser.start();
        listener.awaitPaused();

        // The releaser has reported but not yet returned its slot. Lowering must not wait for it.
        bulkhead.changeMaxConcurrency(1);
        listener.resume();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(waiter).as("the freed slot retired: one call still runs, the new limit is 1").isNotDone();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        second.close();
        assertThat(waiter).isCompleted();
        assertThat(bulkhead.tryAcquire()).isEmpty();
        waiter.join().close();
        assertQuiet(bulkhead, 1);
    }

    @Test
    @DisplayName("release vs limit change (Resilience4j #979): raising during a release grants once, in order")
    void raisingTheLimitWhileASlotIsBeingReleasedGrantsEachWaiterOnce() throws Exception {
        PausingListener listener = new PausingListener();
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(3).listener(listener).build();
        Permit holder = bulkhead.acquire();
        List<CompletableFuture<Permit>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(bulkhead.acquireAsync());
        }
        Thread releaser = new Thread(holder::close, "releaser");
        listener.pauseReleaseOn(releaser);
        releaser.start();
        listener.awaitPaused();

        bulkhead.changeMaxConcurrency(2);
        assertThat(waiters.get(0)).as("raising admits the head at once").isCompleted();
        assertThat(waiters.get(1)).isNotDone();
        listener.resume();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(waiters.get(1)).as("the released slot goes to the next in line").isCompleted();
        assertThat(waiters.get(2)).isNotDone();
        assertThat(bulkhead.executingCount()).isEqualTo(2);
        waiters.get(0).join().close();
        assertThat(waiters.get(2)).isCompleted();
        waiters.get(1).join().close();
        waiters.get(2).join().close();
        assertQuiet(bulkhead, 2);
    }

    @Test
    @DisplayName("limit change vs grant delivery: changing the limit while a grant is delivered keeps counts exact")
    void changingTheLimitWhileAGrantIsDeliveredKeepsTheCountsExact() throws Exception {
        Bulkhead bulkhead = builder().maxConcurrency(1).maxQueue(2).build();
        Permit holder = bulkhead.acquire();
        CompletableFuture<Permit> first = bulkhead.acquireAsync();
        CompletableFuture<Permit> second = bulkhead.acquireAsync();
        Thread releaser = new Thread(holder::close, "releaser");
        ticker.closeOn(releaser, 0);
        releaser.start();
        ticker.awaitArrival();

        bulkhead.changeMaxConcurrency(3);
        assertThat(second).as("raised while the first grant is still in flight").isCompleted();
        bulkhead.changeMaxConcurrency(1);
        ticker.open();
        releaser.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(first).isCompleted();
        assertThat(bulkhead.executingCount()).isEqualTo(2);
        first.join().close();
        assertThat(bulkhead.tryAcquire()).as("still one above the new limit of 1").isEmpty();
        second.join().close();
        assertQuiet(bulkhead, 1);
    }

    // -------------------------------------------------------------------------------------------------------------

    /** The bulkhead is idle and has exactly {@code limit} slots: none leaked, none freed twice. */
    static void assertQuiet(Bulkhead bulkhead, int limit) {
        assertThat(bulkhead.executingCount()).as("executing").isZero();
        assertThat(bulkhead.queuedCount()).as("queued").isZero();
        List<Permit> permits = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            permits.add(bulkhead.tryAcquire().orElseThrow(() -> new AssertionError("a slot leaked")));
        }
        assertThat(bulkhead.tryAcquire()).as("a slot was freed twice").isEmpty();
        permits.forEach(Permit::close);
        assertThat(bulkhead.executingCount()).isZero();
    }

    /** A listener that stops one thread inside {@code released}, i.e. after it reported and before it frees. */
    static final class PausingListener implements BulkheadListener {
        private volatile Thread target;
        private final CountDownLatch paused = new CountDownLatch(1);
        private final CountDownLatch resume = new CountDownLatch(1);

        void pauseReleaseOn(Thread thread) {
            target = thread;
        }

        void awaitPaused() throws InterruptedException {
            assertThat(paused.await(10, TimeUnit.SECONDS)).as("release reached the listener").isTrue();
        }

        void resume() {
            resume.countDown();
        }

        @Override
        public void released(long executionNanos) {
            if (Thread.currentThread() == target) {
                target = null;
                paused.countDown();
                try {
                    resume.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
