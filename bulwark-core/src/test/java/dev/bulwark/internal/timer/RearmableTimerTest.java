package dev.bulwark.internal.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Issue 20: the node a thread re-arms for each of its sync timeouts ({@link RearmableTimer}). The interleavings that
 * matter (an arm or an end between the worker's clear of the queued flag and its clock reading, a re-arm while the
 * node is still on the pending stack, a filing that comes due after its call ended and the next began, fire against
 * disarm, reuse after a fire) are forced one by one on a wheel driven by hand, with owner actions run from inside the
 * wheel's clock reading; then the whole protocol runs against a real timer thread.
 */
class RearmableTimerTest {

    private static final long TICK = 1_000_000;

    private final AtomicLong now = new AtomicLong(5_000_000_777L);
    /** Runs once, from inside the worker's next clock reading: an owner action at that exact point. */
    private final AtomicReference<Runnable> atNextReading = new AtomicReference<>();
    private final TimerWheel wheel = new TimerWheel(TICK, 8, () -> {
        Runnable action = atNextReading.getAndSet(null);
        if (action != null) {
            action.run();
        }
        return now.get();
    });

    /** A node that records, for each expiry, the call it was armed for and the time. */
    private final class Recording extends RearmableTimer {
        final List<String> expired = new ArrayList<>();
        String call;

        Recording() {
            super(RearmableTimerTest.this.wheel);
        }

        long arm(String name, long delay) {
            call = name;
            return arm(delay);
        }

        @Override
        protected void expire() {
            expired.add(call + "@" + now.get());
        }
    }

    private void advance(long ticks) {
        for (long i = 0; i < ticks; i++) {
            wheel.advanceTo(now.addAndGet(TICK));
        }
    }

    @Test
    void anArmFiresOnceNeverEarlyAndTheNodeIsReusableAfterTheFire() {
        Recording node = new Recording();
        long armedAt = now.get();
        long first = node.arm("first", 3 * TICK + 1);
        now.addAndGet(2_500_000); // the worker comes 2.5 ticks late
        long takenAt = now.get();
        wheel.advanceTo(takenAt);
        while (node.expired.isEmpty()) {
            wheel.advanceTo(now.addAndGet(TICK / 10));
        }
        long firedAt = Long.parseLong(node.expired.get(0).substring("first@".length()));
        assertThat(firedAt - armedAt).isGreaterThanOrEqualTo(3 * TICK + 1);
        assertThat(firedAt - takenAt).isBetween(3 * TICK + 1, 4 * TICK + 1);
        assertThat(node.isIdle()).isFalse();
        assertThat(node.disarm(first)).isFalse();
        node.release(first);
        assertThat(node.isIdle()).isTrue();

        long secondArmedAt = now.get();
        long second = node.arm("second", 2 * TICK);
        advance(1);
        assertThat(node.expired).hasSize(1);
        advance(3);
        assertThat(node.expired).hasSize(2);
        assertThat(Long.parseLong(node.expired.get(1).substring("second@".length())) - secondArmedAt)
                .isGreaterThanOrEqualTo(2 * TICK);
        assertThat(node.disarm(second)).isFalse();
        node.release(second);
        advance(2);
        assertThat(wheel.filedCount()).isZero();
    }

    @Test
    void aCallThatEndsInTimeNeverFiresAndItsFilingIsDroppedOnTheNextTick() {
        Recording node = new Recording();
        long armed = node.arm("call", 5 * TICK);
        advance(2);
        assertThat(wheel.filedCount()).isOne();
        assertThat(node.disarm(armed)).isTrue();
        advance(1);
        assertThat(wheel.filedCount()).as("the end's transfer unlinks the filing").isZero();
        advance(10);
        assertThat(node.expired).isEmpty();
    }

    /** A re-arm that finds the node still on the pending stack does not push; the one transfer serves the newest. */
    @Test
    void manyCallsInOneTickCoalesceIntoOneTransferThatSeesTheNewest() {
        Recording node = new Recording();
        long armedAt = 0;
        for (int i = 0; i < 1_000; i++) {
            armedAt = now.addAndGet(100);
            long armed = node.arm("call" + i, 4 * TICK);
            if (i < 999) {
                assertThat(node.disarm(armed)).isTrue();
            }
        }
        advance(1);
        assertThat(wheel.filedCount()).isOne();
        while (node.expired.isEmpty()) {
            wheel.advanceTo(now.addAndGet(TICK / 10));
        }
        assertThat(node.expired).singleElement().asString().startsWith("call999@");
        assertThat(Long.parseLong(node.expired.get(0).substring("call999@".length())) - armedAt)
                .isGreaterThanOrEqualTo(4 * TICK);
    }

    /**
     * The owner ends a call and arms the next one between the worker's clear of the queued flag and its clock
     * reading: the reading comes after the new arm, so the new deadline is never early, and the end's own push
     * leads to a second transfer that files it afresh.
     */
    @Test
    void anEndAndARearmInsideTheWorkersTransferAreNeverEarlyAndNeverFireTheEndedCall() {
        Recording node = new Recording();
        long[] second = new long[1];
        long[] secondArmedAt = new long[1];
        long first = node.arm("first", TICK);
        atNextReading.set(() -> {
            assertThat(node.disarm(first)).isTrue();
            now.addAndGet(10);
            secondArmedAt[0] = now.get();
            second[0] = node.arm("second", 6 * TICK);
        });
        advance(3);
        assertThat(node.expired).as("the first call ended in time").isEmpty();
        assertThat(wheel.filedCount()).isOne();
        while (node.expired.isEmpty()) {
            wheel.advanceTo(now.addAndGet(TICK / 10));
        }
        assertThat(node.expired).singleElement().asString().startsWith("second@");
        assertThat(Long.parseLong(node.expired.get(0).substring("second@".length())) - secondArmedAt[0])
                .isGreaterThanOrEqualTo(6 * TICK);
        assertThat(node.disarm(second[0])).isFalse();
    }

    /**
     * A filing comes due after its call ended and the next call was armed, with the worker between its transfer and
     * its walk of that bucket (forced: the owner acts inside another node's transfer in the same tick). The stale
     * filing is dropped; the next call fires only after its own delay.
     */
    @Test
    void aStaleFilingThatComesDueNeverHitsTheNextCall() {
        Recording node = new Recording();
        Recording trigger = new Recording();
        // The wheel's origin is the first reading; arm, then take the node one tick later: due 2 ticks + 1 ns after
        // that reading, so in the bucket of tick 4, walked first by the advance to tick 4.
        long first = node.arm("first", 2 * TICK + 1);
        advance(3); // ticks 1 to 3: transferred at tick 1, not yet due
        assertThat(wheel.filedCount()).isOne();
        long[] second = new long[1];
        long[] secondArmedAt = new long[1];
        trigger.arm("trigger", 100 * TICK);
        atNextReading.set(() -> {
            // Inside the trigger's transfer, after the worker took the pending stack and before it walks tick 4.
            assertThat(node.disarm(first)).isTrue();
            secondArmedAt[0] = now.get();
            second[0] = node.arm("second", 5 * TICK);
        });
        advance(1);
        advance(3);
        assertThat(node.expired).as("neither the ended call nor, yet, the next").isEmpty();
        while (node.expired.isEmpty()) {
            wheel.advanceTo(now.addAndGet(TICK / 10));
        }
        assertThat(node.expired).singleElement().asString().startsWith("second@");
        assertThat(Long.parseLong(node.expired.get(0).substring("second@".length())) - secondArmedAt[0])
                .isGreaterThanOrEqualTo(5 * TICK);
    }

    @Test
    void aShutDownWheelRefusesAnArmAndTheNodeStaysIdle() {
        Recording node = new Recording();
        wheel.shutdown();
        assertThatThrownBy(() -> node.arm("refused", TICK)).isInstanceOf(RejectedExecutionException.class);
        assertThat(node.isIdle()).isTrue();
    }

    /**
     * Against a real timer thread: an owner re-arms one node 20,000 times with delays around the tick and ends each
     * call after a varying spin. Every call is reported exactly once (in time, or fired), a fire always belongs to the
     * call armed at that moment, never comes before its delay, and a losing disarm always finds expire done.
     */
    @Test
    void armDisarmAndFireRaceOnARunningWheel() throws Exception {
        TimerWheel running = new TimerWheel(TICK / 4, 64, System::nanoTime).start("rearmable-timer-test");
        try {
            AtomicInteger fired = new AtomicInteger();
            AtomicInteger wrongCall = new AtomicInteger();
            AtomicInteger early = new AtomicInteger();
            AtomicLong currentCall = new AtomicLong(-1);
            long[] armedAt = new long[1];
            long[] delay = new long[1];
            boolean[] expired = new boolean[1];
            RearmableTimer node = new RearmableTimer(running) {
                @Override
                protected void expire() {
                    if (currentCall.get() < 0) {
                        wrongCall.incrementAndGet(); // no call armed: a stale fire
                    }
                    if (System.nanoTime() - armedAt[0] < delay[0]) {
                        early.incrementAndGet();
                    }
                    expired[0] = true;
                    fired.incrementAndGet();
                }
            };
            int calls = 20_000;
            AtomicInteger inTime = new AtomicInteger();
            AtomicInteger lostWithoutExpiry = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(1);
            Thread owner = new Thread(() -> {
                try {
                    for (int i = 0; i < calls; i++) {
                        expired[0] = false;
                        delay[0] = (i % 5) * 100_000L;
                        currentCall.set(i);
                        armedAt[0] = System.nanoTime();
                        long armed = node.arm(delay[0]);
                        // Every other call ends after 0 to 1 ms: past the latest fire (delay + two ticks, 900 us) for
                        // the longest spins, so that both outcomes happen on a quiet machine too (a spin counted in
                        // iterations was too short there: every call ended in time). The others end at once.
                        long spinUntil = armedAt[0] + ((i & 1) == 0 ? (i % 11) * 100_000L : 0L);
                        while (System.nanoTime() < spinUntil) {
                            Thread.onSpinWait();
                        }
                        if (node.disarm(armed)) {
                            inTime.incrementAndGet();
                        } else {
                            if (!expired[0]) {
                                lostWithoutExpiry.incrementAndGet();
                            }
                            node.release(armed);
                        }
                        currentCall.set(-1);
                        if (!node.isIdle()) {
                            wrongCall.incrementAndGet();
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
            owner.start();
            assertThat(done.await(120, TimeUnit.SECONDS)).isTrue();
            assertThat(inTime.get() + fired.get()).isEqualTo(calls);
            assertThat(lostWithoutExpiry).hasValue(0);
            assertThat(early).hasValue(0);
            assertThat(wrongCall).hasValue(0);
            assertThat(fired.get()).isPositive();
            assertThat(inTime.get()).isPositive();
        } finally {
            running.shutdown();
        }
    }
}
