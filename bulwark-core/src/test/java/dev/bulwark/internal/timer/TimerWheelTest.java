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
