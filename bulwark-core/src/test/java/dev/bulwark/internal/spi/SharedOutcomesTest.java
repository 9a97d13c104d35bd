package dev.bulwark.internal.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.CancellationSignal;
import dev.bulwark.Rejection;
import dev.bulwark.testing.Rounds;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The outcome code every bulkhead shares: the one compare-and-set that decides a waiter, the refusal with its
 * overflow handler, the cancellations, and the exactly-once release of an async operation's slot.
 */
class SharedOutcomesTest {

    private static final class Fate extends WaiterFate {
        Fate(int openStatus) {
            super(CancellationSignal.none(), 0L, openStatus);
        }

        boolean advanceToWaiting() {
            return advance(JOINING, WAITING);
        }
    }

    @Test
    void aWaitersFateIsDecidedByExactlyOneOfTwoRacingDeciders() throws Exception {
        for (int round = 0; round < Rounds.of(2_000); round++) {
            Fate fate = new Fate(round % 2 == 0 ? WaiterFate.JOINING : WaiterFate.WAITING);
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger winners = new AtomicInteger();
            AtomicReference<Integer> winningOutcome = new AtomicReference<>();
            Thread granter = new Thread(() -> race(fate, start, WaiterFate.GRANTED, winners, winningOutcome));
            Thread canceller = new Thread(() -> race(fate, start, WaiterFate.CANCELLED, winners, winningOutcome));
            granter.start();
            canceller.start();
            start.countDown();
            granter.join();
            canceller.join();

            assertThat(winners).hasValue(1);
            assertThat(fate.status()).isEqualTo(winningOutcome.get());
            assertThat(fate.isOpen()).isFalse();
            assertThat(fate.decideIfOpen(WaiterFate.TIMED_OUT)).isEqualTo(Integer.MIN_VALUE);
        }
    }

    private static void race(Fate fate, CountDownLatch start, int outcome, AtomicInteger winners,
                             AtomicReference<Integer> winningOutcome) {
        try {
            start.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        if (fate.decideIfOpen(outcome) != Integer.MIN_VALUE) {
            winners.incrementAndGet();
            winningOutcome.set(outcome);
        }
    }

    @Test
    void aJoiningWaiterMovesToWaitingOnlyWhileItsFateIsOpen() {
        Fate joining = new Fate(WaiterFate.JOINING);
        assertThat(joining.decideIf(WaiterFate.WAITING, WaiterFate.TIMED_OUT)).isFalse();
        assertThat(joining.advanceToWaiting()).isTrue();
        assertThat(joining.status()).isEqualTo(WaiterFate.WAITING);
        assertThat(joining.decideIfOpen(WaiterFate.GRANTED)).isEqualTo(WaiterFate.WAITING);

        Fate decidedWhileJoining = new Fate(WaiterFate.JOINING);
        assertThat(decidedWhileJoining.decideIfOpen(WaiterFate.CANCELLED)).isEqualTo(WaiterFate.JOINING);
        assertThat(decidedWhileJoining.advanceToWaiting()).isFalse();
        assertThat(decidedWhileJoining.status()).isEqualTo(WaiterFate.CANCELLED);
    }

    @Test
    void aRefusalRunsTheHandlerOnceAndKeepsWhatItThrowsAsSuppressed() {
        Rejection rejection = new Rejection("db", Rejection.Reason.UNAVAILABLE, 2, 1, 0, 0, Duration.ZERO);
        IllegalStateException redisDown = new IllegalStateException("redis down");
        RuntimeException handlerBug = new RuntimeException("handler bug");
        AtomicInteger handled = new AtomicInteger();

        BulkheadRejectedException exception = Outcomes.reject(rejection, redisDown, r -> {
            assertThat(r).isSameAs(rejection);
            handled.incrementAndGet();
            throw handlerBug;
        });

        assertThat(handled).hasValue(1);
        assertThat(exception.rejection()).isSameAs(rejection);
        assertThat(exception.getCause()).isSameAs(redisDown);
        assertThat(exception.getSuppressed()).containsExactly(handlerBug);
        assertThat(Outcomes.reject(rejection, null, null).getCause()).isNull();
    }

    @Test
    void cancellationsNameTheBulkheadAndCarryTheirCause() {
        CancellationSignal signal = CancellationSignal.create();
        IllegalStateException reason = new IllegalStateException("shutting down");
        signal.cancel(reason);

        CancellationException beforeStart = Outcomes.cancelledBeforeStart("db", signal);
        CancellationException whileQueued = Outcomes.cancelledWhileQueued("db", signal);
        CancellationException interrupted = Outcomes.interruptedWhileQueued("db");

        assertThat(beforeStart).hasMessage("Bulkhead 'db': the call was cancelled before it started")
                .hasCause(reason);
        assertThat(whileQueued).hasMessage("Bulkhead 'db': the call was cancelled while queued").hasCause(reason);
        assertThat(interrupted).hasMessage("Bulkhead 'db': the thread was interrupted while queued")
                .hasCauseInstanceOf(InterruptedException.class);
    }

    @Test
    void anAsyncOperationReleasesItsSlotExactlyOnceOnEveryPath() {
        AtomicInteger releases = new AtomicInteger();
        AtomicReference<Throwable> released = new AtomicReference<>();
        AsyncOperation.Slot slot = (startedAt, failure) -> {
            releases.incrementAndGet();
            released.set(failure);
        };

        CompletableFuture<String> done = new CompletableFuture<>();
        AsyncOperation.start(() -> CompletableFuture.completedFuture("now"), done, slot, 0L);
        assertThat(done).isCompletedWithValue("now");
        assertThat(releases).hasValue(1);

        IllegalArgumentException thrown = new IllegalArgumentException("thrown");
        CompletableFuture<String> threw = new CompletableFuture<>();
        AsyncOperation.start(() -> {
            throw thrown;
        }, threw, slot, 0L);
        assertThat(threw).isCompletedExceptionally();
        assertThat(releases).hasValue(2);
        assertThat(released).hasValue(thrown);

        CompletableFuture<String> nullStage = new CompletableFuture<>();
        AsyncOperation.start(() -> null, nullStage, slot, 0L);
        assertThat(nullStage).isCompletedExceptionally();
        assertThat(releases).hasValue(3);

        CompletableFuture<String> later = new CompletableFuture<>();
        CompletableFuture<String> result = new CompletableFuture<>();
        AsyncOperation.start(() -> later.thenApply(value -> value), result, slot, 0L);
        assertThat(releases).hasValue(3);
        IllegalStateException failure = new IllegalStateException("failed later");
        later.completeExceptionally(failure);
        assertThat(releases).hasValue(4);
        // The CompletionException the dependent stage wrapped around the failure is taken off.
        assertThat(released).hasValue(failure);
        assertThat(result.isCompletedExceptionally()).isTrue();
        assertThat(result.handle((value, error) -> error).join()).isSameAs(failure);
    }
}
