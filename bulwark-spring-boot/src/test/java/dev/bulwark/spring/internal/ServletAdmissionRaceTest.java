package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Bulkhead;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import jakarta.servlet.AsyncEvent;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Forced interleavings of {@link ServletAdmission}'s state machine against a real bulkhead: a grant before, during
 * and after the suspension; the container giving up before and after a grant; and a grant racing the container's
 * error on two threads. Each checks the invariants: one outcome, a dispatch only after suspension and at most once,
 * the slot released exactly once.
 */
class ServletAdmissionRaceTest {

    private final Bulkhead bulkhead = Bulkhead.builder().name("race").maxConcurrency(1).maxQueue(1).build();
    private final SheddingRoute route = new SheddingRoute(0, PathPatternParser.defaultInstance.parse("/**"), Set.of(),
            new RouteLimiter.Single(bulkhead), new KeySource.None(), "-", 503, null, "about:blank",
            RoutePriority.NONE);

    private ServletAdmission queuedBehind(Permit holder) {
        ServletAdmission admission = new ServletAdmission(route, "-", Priority.NORMAL, "/x");
        route.limiter().admit("-", Priority.NORMAL, admission::granted, admission.signal)
                .whenComplete(admission::ended);
        assertThat(holder.isReleased()).isFalse();
        assertThat(admission.state()).isEqualTo(ServletAdmission.WAITING);
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        return admission;
    }

    @Test
    void aGrantAfterTheSuspensionDispatchesOnce() {
        Permit holder = bulkhead.acquire();
        ServletAdmission admission = queuedBehind(holder);
        RecordingAsyncContext context = new RecordingAsyncContext();
        admission.suspend(context);
        assertThat(admission.state()).isEqualTo(ServletAdmission.SUSPENDED);
        assertThat(context.dispatches).hasValue(0);

        holder.close();

        assertThat(admission.state()).isEqualTo(ServletAdmission.GRANTED);
        assertThat(context.dispatches).hasValue(1);
        assertThat(admission.claim(ServletAdmission.GRANTED, ServletAdmission.RUNNING)).isTrue();
        assertThat(bulkhead.executingCount()).isEqualTo(1);
        admission.done.complete(null);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aGrantBetweenTheCheckAndTheSuspensionIsDispatchedByTheSuspendingThread() {
        Permit holder = bulkhead.acquire();
        ServletAdmission admission = queuedBehind(holder);
        holder.close(); // the grant lands while the request thread is between its check and suspend()
        assertThat(admission.state()).isEqualTo(ServletAdmission.GRANTED);

        RecordingAsyncContext context = new RecordingAsyncContext();
        admission.suspend(context);

        assertThat(context.dispatches).as("the suspending thread dispatches, the grant could not").hasValue(1);
        assertThat(admission.state()).isEqualTo(ServletAdmission.GRANTED);
    }

    @Test
    void anErrorWhileQueuedLeavesTheQueueAndALaterFreeSlotIsNotGivenToIt() {
        Permit holder = bulkhead.acquire();
        ServletAdmission admission = queuedBehind(holder);
        RecordingAsyncContext context = new RecordingAsyncContext();
        admission.suspend(context);

        admission.onError(new AsyncEvent(context));

        assertThat(admission.state()).isEqualTo(ServletAdmission.ABANDONED);
        assertThat(bulkhead.queuedCount()).isZero();
        assertThat(context.completions).hasValue(1);
        holder.close();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(context.dispatches).hasValue(0);
    }

    @Test
    void anErrorAfterAGrantHandsTheSlotBackAndTheDispatchFindsNothingToRun() {
        Permit holder = bulkhead.acquire();
        ServletAdmission admission = queuedBehind(holder);
        RecordingAsyncContext context = new RecordingAsyncContext();
        admission.suspend(context);
        holder.close();
        assertThat(bulkhead.executingCount()).isEqualTo(1);

        admission.onError(new AsyncEvent(context));

        assertThat(bulkhead.executingCount()).as("released by the abandonment").isZero();
        assertThat(admission.claim(ServletAdmission.GRANTED, ServletAdmission.RUNNING))
                .as("the pending dispatch must not run the application").isFalse();
        admission.onComplete(new AsyncEvent(context));
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void aRefusalAfterTheSuspensionDispatchesOnceAndIsWrittenOnce() {
        Bulkhead noQueue = Bulkhead.builder().name("refusing").maxConcurrency(1).maxQueue(0).build();
        SheddingRoute refusing = new SheddingRoute(0, PathPatternParser.defaultInstance.parse("/**"), Set.of(),
                new RouteLimiter.Single(noQueue), new KeySource.None(), "-", 503, null, "about:blank",
            RoutePriority.NONE);
        Permit holder = noQueue.acquire();
        ServletAdmission admission = new ServletAdmission(refusing, "-", Priority.NORMAL, "/x");
        refusing.limiter().admit("-", Priority.NORMAL, admission::granted, admission.signal)
                .whenComplete(admission::ended);

        assertThat(admission.state()).isEqualTo(ServletAdmission.REFUSED);
        assertThat(admission.rejection().reason()).isEqualTo(dev.bulwark.Rejection.Reason.QUEUE_FULL);
        assertThat(admission.claim(ServletAdmission.REFUSED, ServletAdmission.ABANDONED)).isTrue();
        assertThat(admission.claim(ServletAdmission.REFUSED, ServletAdmission.ABANDONED))
                .as("a second writer finds it taken").isFalse();
        holder.close();
    }

    @Test
    void aGrantRacingTheContainersErrorEndsInExactlyOneOutcomeAndOneRelease() throws Exception {
        for (int round = 0; round < 2_000; round++) {
            Permit holder = bulkhead.acquire();
            ServletAdmission admission = queuedBehind(holder);
            RecordingAsyncContext context = new RecordingAsyncContext();
            admission.suspend(context);
            CyclicBarrier start = new CyclicBarrier(2);
            Thread granting = new Thread(() -> {
                await(start);
                holder.close();
            });
            granting.start();
            await(start);
            admission.onError(new AsyncEvent(context));
            granting.join(TimeUnit.SECONDS.toMillis(10));

            // Whoever won, the state ends ABANDONED (the error came second, or first) and nothing is left held.
            assertThat(admission.state()).isEqualTo(ServletAdmission.ABANDONED);
            assertThat(admission.claim(ServletAdmission.GRANTED, ServletAdmission.RUNNING)).isFalse();
            assertThat(context.dispatches.get()).as("round %d", round).isLessThanOrEqualTo(1);
            assertThat(context.completions).hasValue(1);
            assertThat(bulkhead.executingCount()).as("round %d", round).isZero();
            assertThat(bulkhead.queuedCount()).as("round %d", round).isZero();
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception interrupted) {
            throw new IllegalStateException(interrupted);
        }
    }
}
