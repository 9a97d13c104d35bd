package dev.bulwark.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.CancellationSignal;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Forced races on one waiter's fate: a refusal (drain, eviction, lowered limit, full queue), a failure (lost
 * connection, failed poll) and a grant or cancellation start together from a barrier, many times over, waiting and
 * still joining. Exactly one wins, the waiter's recorded reason is the winner's, and a loser's reason never
 * replaces it.
 */
class RedisWaiterFateRaceTest {

    private static final int ROUNDS = 20_000;

    /** A waiter that only counts how often it was told it is decided. */
    private static final class CountingWaiter extends RemoteWaiter {
        final AtomicInteger decidedCalls = new AtomicInteger();

        CountingWaiter() {
            super(null, "id", 1, Priority.NORMAL, CancellationSignal.none(), 0L);
        }

        @Override
        void decided() {
            decidedCalls.incrementAndGet();
        }

        @Override
        void nowWaiting() {
        }
    }

    private static Rejection closed(int round) {
        return new Rejection("race", Rejection.Reason.CLOSED, 1, 1, 0, round, Duration.ZERO);
    }

    @Test
    void refusalFailureAndGrantRaceForOneWaiterAndExactlyOneWins() throws Exception {
        race(RemoteWaiter.GRANTED);
    }

    @Test
    void refusalFailureAndCancellationRaceForOneWaiterAndExactlyOneWins() throws Exception {
        race(RemoteWaiter.CANCELLED);
    }

    private void race(int thirdOutcome) throws Exception {
        CyclicBarrier start = new CyclicBarrier(4);
        CyclicBarrier end = new CyclicBarrier(4);
        CountingWaiter[] waiter = new CountingWaiter[1];
        int[] results = new int[3];
        Rejection[] refusal = new Rejection[1];
        Throwable[] failure = new Throwable[1];
        Runnable[] racers = {
            () -> results[0] = waiter[0].refuse(refusal[0]),
            () -> results[1] = waiter[0].fail(failure[0], false),
            () -> results[2] = waiter[0].decide(thirdOutcome)};
        Thread[] threads = new Thread[3];
        for (int t = 0; t < 3; t++) {
            Runnable racer = racers[t];
            threads[t] = new Thread(() -> {
                try {
                    for (int round = 0; round < ROUNDS; round++) {
                        start.await(10, TimeUnit.SECONDS);
                        racer.run();
                        end.await(10, TimeUnit.SECONDS);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        int[] wins = new int[3];
        for (int round = 0; round < ROUNDS; round++) {
            waiter[0] = new CountingWaiter();
            if (round % 2 == 0) {
                assertThat(waiter[0].markWaiting(0)).isTrue();
            }
            refusal[0] = closed(round);
            failure[0] = new IllegalStateException("round " + round);
            if (round == 0) {
                for (Thread thread : threads) {
                    thread.start();
                }
            }
            start.await(10, TimeUnit.SECONDS);
            end.await(10, TimeUnit.SECONDS);
            int winners = 0;
            for (int t = 0; t < 3; t++) {
                if (results[t] != RemoteWaiter.ALREADY_DECIDED) {
                    winners++;
                    wins[t]++;
                    assertThat(results[t]).isEqualTo(round % 2 == 0 ? RemoteWaiter.WAITING : RemoteWaiter.JOINING);
                }
            }
            assertThat(winners).as("round %d: exactly one decides", round).isEqualTo(1);
            int status = waiter[0].status();
            if (results[0] != RemoteWaiter.ALREADY_DECIDED) {
                assertThat(status).isEqualTo(RemoteWaiter.REFUSED);
                assertThat(waiter[0].refusal).isSameAs(refusal[0]);
            } else if (results[1] != RemoteWaiter.ALREADY_DECIDED) {
                assertThat(status).isEqualTo(RemoteWaiter.UNAVAILABLE);
                assertThat(waiter[0].failure).isSameAs(failure[0]);
            } else {
                assertThat(status).isEqualTo(thirdOutcome);
            }
            assertThat(waiter[0].refuse(closed(0))).as("decided for good").isEqualTo(RemoteWaiter.ALREADY_DECIDED);
            assertThat(waiter[0].fail(new IllegalStateException(), false)).isEqualTo(RemoteWaiter.ALREADY_DECIDED);
        }
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        // Not a timing claim, just that the race was real: each racer won sometimes.
        assertThat(wins).as("wins per racer").doesNotContain(0);
    }
}
