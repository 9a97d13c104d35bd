package dev.bulwark.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Issue 20: the shared timing wheel fires never early, within a tick, at most once, and never after a cancel. */
class TimerWheelTest {

    private static final long TICK = 1_000_000;

    private final AtomicLong now = new AtomicLong(5_000_000_123L);
    private final TimerWheel wheel = new TimerWheel(TICK, 8, now::get);

    private void advance(long nanos) {
        wheel.advanceTo(now.addAndGet(nanos));
    }

    @Test
    void aTimerFiresNoEarlierThanItsDeadlineAndWithinOneTickAfterIt() {
        for (long delay : new long[] {0, 1, 999_999, 1_000_000, 1_500_000, 7_300_000, 8_000_000, 123_456_789}) {
            List<Long> firedAt = new ArrayList<>();
            long scheduledAt = now.get();
            wheel.schedule(() -> firedAt.add(now.get()), delay, TimeUnit.NANOSECONDS);
            // Walk the clock in steps of a tenth of a tick, past the deadline plus a tick.
            while (now.get() <= scheduledAt + delay + TICK && firedAt.isEmpty()) {
                advance(TICK / 10);
            }
            assertThat(firedAt).as("delay %d", delay).hasSize(1);
            assertThat(firedAt.get(0) - scheduledAt).as("delay %d", delay).isGreaterThanOrEqualTo(delay)
                    .isLessThanOrEqualTo(delay + TICK);
        }
        assertThat(wheel.filedCount()).isZero();
    }

    @Test
    void aDeadlineTooFarForTheTickArithmeticWaitsInItsBucketInsteadOfBeingRefiledEveryTick() {
        // A wheel started while the clock read negative (System.nanoTime may), and a delay that saturates the deadline
        // at Long.MAX_VALUE once the clock reads positive: the deadline's distance from the wheel's origin overflows.
        // It used to read as "due at this tick", so the node was unlinked and filed one tick later on every tick of
        // its (endless) life.
        AtomicLong negative = new AtomicLong(-2 * TICK - 123);
        TimerWheel far = new TimerWheel(TICK, 8, negative::get);
        far.advanceTo(negative.addAndGet(3 * TICK));
        AtomicInteger fired = new AtomicInteger();
        TimerNode node = (TimerNode) far.schedule(fired::incrementAndGet, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        assertThat(node.deadline).isEqualTo(Long.MAX_VALUE);
        far.advanceTo(negative.addAndGet(TICK));
        int bucket = node.bucketIndex;
        assertThat(bucket).isNotNegative();
        for (int tick = 0; tick < 20; tick++) {
            far.advanceTo(negative.addAndGet(TICK));
            assertThat(node.bucketIndex).as("tick %d", tick).isEqualTo(bucket);
        }
        assertThat(fired).hasValue(0);
        assertThat(far.filedCount()).isEqualTo(1);
        assertThat(node.tryCancel()).isTrue();
        far.advanceTo(negative.addAndGet(TICK));
        assertThat(far.filedCount()).isZero();
    }

    /** Thirty days of 1 ms ticks: what a parked idle worker may have slept through. */
    private static final long IDLE_GAP = TimeUnit.DAYS.toNanos(30);

    /** Steps the clock by tenths of a tick until {@code fired} is set, past {@code limit} at most. */
    private void advanceUntilFired(AtomicLong firedAt, long limit) {
        while (firedAt.get() == 0 && now.get() <= limit) {
            advance(TICK / 10);
        }
    }

    @Test
    void afterALongIdleGapTheSkippedTicksAreNotWalkedAndANewTimerFiresOnTime() {
        // The worker parks without a deadline when idle; on waking, one advanceTo used to walk every tick it slept
        // through (2.6 billion here) before it filed the first new timer, which so fired that much late.
        AtomicLong firstAt = new AtomicLong();
        wheel.schedule(() -> firstAt.set(now.get()), 1, TimeUnit.MILLISECONDS);
        advanceUntilFired(firstAt, now.get() + 3 * TICK);
        assertThat(firstAt.get()).isPositive();
        assertThat(wheel.filedCount()).isZero();

        long walkedBefore = wheel.ticksWalked;
        advance(IDLE_GAP);
        assertThat(wheel.ticksWalked - walkedBefore).as("ticks walked over the idle gap").isLessThanOrEqualTo(1);

        long delay = 3_500_000;
        long scheduledAt = now.get();
        AtomicLong firedAt = new AtomicLong();
        wheel.schedule(() -> firedAt.set(now.get()), delay, TimeUnit.NANOSECONDS);
        advanceUntilFired(firedAt, scheduledAt + delay + 2 * TICK);
        assertThat(firedAt.get() - scheduledAt).isGreaterThanOrEqualTo(delay).isLessThanOrEqualTo(delay + TICK);
        assertThat(wheel.ticksWalked - walkedBefore).as("ticks walked in all").isLessThanOrEqualTo(1 + 5);
    }

    @Test
    void timersPendingAcrossALongGapFireNeverEarlyAndNotALapLate() {
        // Scheduled before the gap and filed only after the jump: one long overdue, one due just after the gap.
        AtomicLong overdueAt = new AtomicLong();
        AtomicLong justAfterAt = new AtomicLong();
        long scheduledAt = now.get();
        long justAfter = IDLE_GAP + 2_500_000;
        wheel.schedule(() -> overdueAt.set(now.get()), 1, TimeUnit.MILLISECONDS);
        wheel.schedule(() -> justAfterAt.set(now.get()), justAfter, TimeUnit.NANOSECONDS);
        long walkedBefore = wheel.ticksWalked;
        advance(IDLE_GAP);
        assertThat(overdueAt.get()).as("the overdue timer fires at once").isEqualTo(scheduledAt + IDLE_GAP);
        assertThat(justAfterAt.get()).isZero();
        advanceUntilFired(justAfterAt, scheduledAt + justAfter + 2 * TICK);
        assertThat(justAfterAt.get() - scheduledAt).isGreaterThanOrEqualTo(justAfter)
                .isLessThanOrEqualTo(justAfter + TICK);
        assertThat(wheel.ticksWalked - walkedBefore).isLessThanOrEqualTo(1 + 4);
        assertThat(wheel.filedCount()).isZero();
    }

    @Test
    void aGapWithTimersFiledIsWalkedSoThatEveryBucketFires() {
        // The skip is only for an empty wheel: a timer in each of the 8 buckets must fire when the clock jumps past
        // them all at once (as when the timer thread was not scheduled for a while).
        AtomicInteger fired = new AtomicInteger();
        for (int i = 0; i < 8; i++) {
            wheel.schedule(fired::incrementAndGet, 50 + i, TimeUnit.MILLISECONDS);
        }
        advance(TICK / 2);
        assertThat(wheel.filedCount()).isEqualTo(8);
        advance(100 * TICK);
        assertThat(fired).hasValue(8);
        assertThat(wheel.filedCount()).isZero();
    }

    @Test
    void timersFarBeyondOneLapWaitTheirRounds() {
        AtomicInteger fired = new AtomicInteger();
        wheel.schedule(fired::incrementAndGet, 50, TimeUnit.MILLISECONDS); // 6 laps of 8 ticks, and 2 more
        for (int i = 0; i < 49; i++) {
            advance(TICK);
        }
        assertThat(fired).hasValue(0);
        advance(TICK);
        advance(TICK);
        assertThat(fired).hasValue(1);
    }

    @Test
    void aCancelledTimerNeverRunsAndIsUnlinkedOnTheNextTick() {
        AtomicInteger fired = new AtomicInteger();
        Timer before = (Timer) wheel.schedule(fired::incrementAndGet, 3, TimeUnit.MILLISECONDS);
        assertThat(before.tryCancel()).isTrue();   // cancelled while still pending
        Timer filed = (Timer) wheel.schedule(fired::incrementAndGet, 3, TimeUnit.MILLISECONDS);
        advance(TICK / 2);
        assertThat(wheel.filedCount()).isEqualTo(1);
        filed.cancel();                             // cancelled once filed
        assertThat(filed.tryCancel()).isFalse();    // idempotent
        advance(TICK);
        assertThat(wheel.filedCount()).isZero();
        advance(10 * TICK);
        assertThat(fired).hasValue(0);
    }

    @Test
    void aFiredTimerCannotBeCancelledAndATaskThatThrowsDoesNotStopTheWheel() {
        AtomicInteger fired = new AtomicInteger();
        wheel.schedule(() -> {
            throw new IllegalStateException("a broken task");
        }, 1, TimeUnit.MILLISECONDS);
        Timer timer = (Timer) wheel.schedule(fired::incrementAndGet, 1, TimeUnit.MILLISECONDS);
        advance(2 * TICK);
        assertThat(fired).hasValue(1);
        assertThat(timer.tryCancel()).isFalse();
    }

    @Test
    void aCancelledTimerReleasesItsTaskAtOnce() {
        Object[] payload = {new Object()};
        WeakReference<Object> reference = new WeakReference<>(payload[0]);
        Runnable task = new Runnable() {
            Object held = payload[0];

            @Override
            public void run() {
                held = null;
            }
        };
        Timer timer = (Timer) wheel.schedule(task, 1, TimeUnit.HOURS);
        advance(TICK);
        payload[0] = null;
        task = null;
        timer.cancel();
        // No tick since the cancel: the node is still filed, but its task is gone.
        assertThat(wheel.filedCount()).isEqualTo(1);
        for (int i = 0; i < 20 && reference.get() != null; i++) {
            System.gc();
        }
        assertThat(reference.get()).isNull();
        assertThat(task).isNull();
    }

    @Test
    void badArgumentsAndAShutDownWheelAreRefused() {
        assertThatThrownBy(() -> new TimerWheel(0, 8, now::get)).hasMessageContaining("tickNanos");
        assertThatThrownBy(() -> new TimerWheel(TICK, 6, now::get)).hasMessageContaining("buckets");
        assertThatThrownBy(() -> wheel.schedule(null, 1, TimeUnit.SECONDS)).isInstanceOf(NullPointerException.class);
        wheel.shutdown();
        assertThatThrownBy(() -> wheel.schedule(() -> { }, 1, TimeUnit.SECONDS))
                .isInstanceOf(RejectedExecutionException.class);
    }

    /**
     * Schedule vs cancel vs fire on a running wheel: each timer either ran exactly once or was cancelled by a winning
     * {@code tryCancel}, never both, never neither once its deadline passed; and nothing stays filed.
     */
    @Test
    void scheduleCancelAndFireRaceAndEachTimerHasExactlyOneFate() throws Exception {
        TimerWheel running = new TimerWheel(TICK, 64, System::nanoTime).start("timer-wheel-test");
        try {
            int threads = 3;
            int perThread = 20_000;
            AtomicInteger ran = new AtomicInteger();
            AtomicInteger cancelledWins = new AtomicInteger();
            AtomicInteger ranTwiceOrAfterCancel = new AtomicInteger();
            CyclicBarrier start = new CyclicBarrier(threads);
            CountDownLatch done = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                int seed = t;
                new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            AtomicInteger runs = new AtomicInteger();
                            boolean[] cancelled = new boolean[1];
                            Timer timer = (Timer) running.schedule(() -> {
                                if (runs.incrementAndGet() != 1 || cancelled[0]) {
                                    ranTwiceOrAfterCancel.incrementAndGet();
                                }
                                ran.incrementAndGet();
                            }, (i + seed) % 3 * 500_000L, TimeUnit.NANOSECONDS);
                            if (i % 2 == 0) {
                                synchronized (cancelled) { // orders the flag with the task's read of it
                                    cancelled[0] = timer.tryCancel();
                                }
                                if (cancelled[0]) {
                                    cancelledWins.incrementAndGet();
                                }
                            }
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        done.countDown();
                    }
                }).start();
            }
            assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ran.get() + cancelledWins.get() < threads * perThread && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(ran.get() + cancelledWins.get()).isEqualTo(threads * perThread);
            assertThat(ranTwiceOrAfterCancel).hasValue(0);
            assertThat(cancelledWins.get()).isPositive();
        } finally {
            running.shutdown();
        }
    }
}
