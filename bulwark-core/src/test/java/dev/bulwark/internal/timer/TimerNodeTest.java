package dev.bulwark.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: an object can be its own wheel node ({@link TimerWheel#scheduleAfter}): the delay counts from the
 * worker's clock reading after it took the node, so it never expires early however late the worker comes, and the
 * node's state decides exactly one of expired and cancelled, even in a race.
 */
class TimerNodeTest {

    private static final long TICK = 1_000_000;

    private final AtomicLong now = new AtomicLong(7_000_000_321L);
    private final TimerWheel wheel = new TimerWheel(TICK, 8, now::get);

    /** A node that records when it expired. */
    private final class Recording extends TimerNode {
        final List<Long> expiredAt = new ArrayList<>();

        Recording(TimerWheel on, long delay) {
            super(on, delay);
        }

        @Override
        protected void expire() {
            expiredAt.add(now.get());
        }
    }

    @Test
    void aDelayCountsFromWhenTheWorkerTookTheNodeSoItIsNeverEarly() {
        for (long delay : new long[] {0, 1, 999_999, 1_000_000, 2_500_000, 9_000_000, 40_000_000}) {
            Recording node = new Recording(wheel, delay);
            long scheduledAt = now.get();
            wheel.scheduleAfter(node);
            // The worker comes late: 3.7 ticks after the push, it takes the node.
            now.addAndGet(3_700_000);
            long takenAt = now.get();
            wheel.advanceTo(takenAt);
            while (node.expiredAt.isEmpty() && now.get() <= takenAt + delay + TICK) {
                wheel.advanceTo(now.addAndGet(TICK / 10));
            }
            assertThat(node.expiredAt).as("delay %d", delay).hasSize(1);
            long expiredAt = node.expiredAt.get(0);
            assertThat(expiredAt - scheduledAt).as("never early, delay %d", delay).isGreaterThanOrEqualTo(delay);
            assertThat(expiredAt - takenAt).as("within a tick of the delay after it was taken, delay %d", delay)
                    .isGreaterThanOrEqualTo(delay).isLessThanOrEqualTo(delay + TICK);
            assertThat(node.tryCancel()).isFalse();
        }
        assertThat(wheel.filedCount()).isZero();
    }

    @Test
    void aNodeCancelledBeforeOrAfterFilingNeverExpiresAndLeavesNothingFiled() {
        Recording pending = new Recording(wheel, 5 * TICK);
        wheel.scheduleAfter(pending);
        assertThat(pending.tryCancel()).isTrue();
        Recording filed = new Recording(wheel, 5 * TICK);
        wheel.scheduleAfter(filed);
        wheel.advanceTo(now.addAndGet(TICK));
        assertThat(wheel.filedCount()).isEqualTo(1);
        assertThat(filed.tryCancel()).isTrue();
        assertThat(filed.tryCancel()).isFalse();
        for (int i = 0; i < 10; i++) {
            wheel.advanceTo(now.addAndGet(TICK));
        }
        assertThat(pending.expiredAt).isEmpty();
        assertThat(filed.expiredAt).isEmpty();
        assertThat(wheel.filedCount()).isZero();
    }

    /**
     * The sync timeout's protocol on a running wheel: the caller's {@code tryCancel} races the timer; whoever loses
     * sees the other's effect: a losing caller that waits with {@code awaitExpired} always finds {@code expire} done,
     * and a node whose cancel won never expires.
     */
    @Test
    void cancelRacesExpiryAndTheLoserAlwaysSeesTheWinnersEffect() throws Exception {
        TimerWheel running = new TimerWheel(TICK / 4, 64, System::nanoTime).start("timer-node-test");
        try {
            int threads = 2;
            int perThread = 20_000;
            AtomicInteger expiredAfterCancel = new AtomicInteger();
            AtomicInteger lostButNotExpired = new AtomicInteger();
            AtomicInteger expirations = new AtomicInteger();
            AtomicInteger cancels = new AtomicInteger();
            CyclicBarrier start = new CyclicBarrier(threads);
            CountDownLatch done = new CountDownLatch(threads);
            for (int t = 0; t < threads; t++) {
                int seed = t;
                new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            boolean[] won = new boolean[1];
                            boolean[] expired = new boolean[1];
                            TimerNode node = new TimerNode(running, (i + seed) % 4 * 100_000L) {
                                @Override
                                protected void expire() {
                                    if (won[0]) {
                                        expiredAfterCancel.incrementAndGet();
                                    }
                                    expired[0] = true;
                                    expirations.incrementAndGet();
                                }
                            };
                            running.scheduleAfter(node);
                            for (int spin = 0; spin < (i % 7) * 50; spin++) {
                                Thread.onSpinWait();
                            }
                            won[0] = node.tryCancel();
                            if (won[0]) {
                                cancels.incrementAndGet();
                            } else {
                                node.awaitExpired();
                                if (!expired[0]) {
                                    lostButNotExpired.incrementAndGet();
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
            assertThat(expirations.get() + cancels.get()).isEqualTo(threads * perThread);
            assertThat(expiredAfterCancel).hasValue(0);
            assertThat(lostButNotExpired).hasValue(0);
            assertThat(cancels.get()).isPositive();
        } finally {
            running.shutdown();
        }
    }
}
