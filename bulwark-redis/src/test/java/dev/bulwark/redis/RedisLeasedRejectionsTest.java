package dev.bulwark.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.BulkheadListener;
import dev.bulwark.BulkheadRejectedException;
import dev.bulwark.Permit;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.redis.testing.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The leased mode's refusals carry this instance's true facts: {@code maxConcurrency} is its block and
 * {@code executingCount} its calls in flight, not the local bulkhead's limit and count, which include the slot the
 * instance reserves for itself. The same facts in the thrown exception (and its message), the failed future, the
 * overflow handler and the listeners (the builder's and one added later).
 */
class RedisLeasedRejectionsTest {

    /** A single instance is granted the whole limit at its first renewal, which {@code build()} makes. */
    private static final int LIMIT = 3;

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.perClass();

    /** Every refusal as each path saw it. */
    private static final class Seen {
        final List<Rejection> handler = new CopyOnWriteArrayList<>();
        final List<Rejection> builderListener = new CopyOnWriteArrayList<>();
        final List<Rejection> addedListener = new CopyOnWriteArrayList<>();

        BulkheadListener into(List<Rejection> rejections) {
            return new BulkheadListener() {
                @Override
                public void rejected(Rejection rejection) {
                    rejections.add(rejection);
                }
            };
        }
    }

    private static RedisBulkhead instance(String name, int maxQueue, Duration maxWait, Seen seen) {
        RedisBulkhead.Builder builder = RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(LIMIT)
                .maxQueue(maxQueue).commandTimeout(RedisFixture.PATIENT).leased(Duration.ofMillis(100))
                .onRejected(seen.handler::add).listener(seen.into(seen.builderListener));
        if (maxWait != null) {
            builder.maxWait(maxWait);
        }
        RedisBulkhead bulkhead = redis.track(builder.build());
        bulkhead.addListener(seen.into(seen.addedListener));
        return bulkhead;
    }

    /** One refusal through each path a call can take: acquire, call, callAsync, acquireAsync (in that order). */
    private static List<BulkheadRejectedException> refusedOnEveryPath(RedisBulkhead bulkhead) {
        List<BulkheadRejectedException> thrown = new ArrayList<>();
        thrown.add(catchRefusal(bulkhead::acquire));
        thrown.add(catchRefusal(() -> bulkhead.call(() -> "never runs")));
        thrown.add(refusal(bulkhead.callAsync(() -> CompletableFuture.completedFuture("never runs"))));
        thrown.add(refusal(bulkhead.acquireAsync()));
        return thrown;
    }

    private static List<Permit> holdAll(RedisBulkhead bulkhead) {
        List<Permit> held = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            held.add(bulkhead.acquire());
        }
        assertThat(bulkhead.localExecutingCount()).isEqualTo(LIMIT);
        return held;
    }

    private static BulkheadRejectedException refusal(CompletableFuture<?> future) {
        assertThatThrownBy(() -> future.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(BulkheadRejectedException.class);
        return (BulkheadRejectedException) future.handle((value, failure) -> failure).join();
    }

    /** The facts every path must show: the block, the calls in flight, and the rest as the local bulkhead saw it. */
    private static void assertTrue(Rejection rejection, String name, Rejection.Reason reason, int maxQueue,
                                   int queued) {
        assertThat(rejection.bulkheadName()).isEqualTo(name);
        assertThat(rejection.reason()).isEqualTo(reason);
        assertThat(rejection.maxConcurrency()).as("the block").isEqualTo(LIMIT);
        assertThat(rejection.executingCount()).as("this instance's calls in flight").isEqualTo(LIMIT);
        assertThat(rejection.maxQueue()).isEqualTo(maxQueue);
        assertThat(rejection.queuedCount()).isEqualTo(queued);
        assertThat(rejection.priority()).isEqualTo(Priority.NORMAL);
        if (reason == Rejection.Reason.QUEUE_FULL) {
            assertThat(rejection.waited()).isZero();
        } else {
            assertThat(rejection.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        }
    }

    private static void assertEverywhere(Seen seen, List<BulkheadRejectedException> thrown, String name,
                                         Rejection.Reason reason, int maxQueue, int queued) {
        assertThat(seen.handler).hasSameSizeAs(thrown);
        assertThat(seen.builderListener).containsExactlyElementsOf(seen.handler);
        assertThat(seen.addedListener).containsExactlyElementsOf(seen.handler);
        for (int i = 0; i < thrown.size(); i++) {
            Rejection facts = thrown.get(i).rejection();
            assertTrue(facts, name, reason, maxQueue, queued);
            assertThat(seen.handler.get(i)).isEqualTo(facts);
            assertThat(thrown.get(i)).hasMessageContaining("executing " + LIMIT + " of " + LIMIT);
        }
    }

    @Test
    void aRefusalForAFullQueueStatesTheBlockAndTheCallsInFlightOnEveryPath(TestInfo test) {
        String name = test.getTestMethod().orElseThrow().getName();
        Seen seen = new Seen();
        RedisBulkhead bulkhead = instance(name, 0, null, seen);
        List<Permit> held = holdAll(bulkhead);

        List<BulkheadRejectedException> thrown = refusedOnEveryPath(bulkhead);

        assertEverywhere(seen, thrown, name, Rejection.Reason.QUEUE_FULL, 0, 0);
        held.forEach(Permit::close);
    }

    @Test
    void aRefusalAfterTheMaximumWaitStatesTheBlockAndTheCallsInFlightOnEveryPath(TestInfo test) {
        String name = test.getTestMethod().orElseThrow().getName();
        Seen seen = new Seen();
        RedisBulkhead bulkhead = instance(name, 5, Duration.ofMillis(50), seen);
        List<Permit> held = holdAll(bulkhead);

        List<BulkheadRejectedException> thrown = refusedOnEveryPath(bulkhead);

        assertEverywhere(seen, thrown, name, Rejection.Reason.WAIT_TIMEOUT, 5, 0);
        held.forEach(Permit::close);
    }

    @Test
    void anOperationsOwnRefusalFromAnotherBulkheadPassesThroughUntouched(TestInfo test) throws Exception {
        String name = test.getTestMethod().orElseThrow().getName();
        RedisBulkhead bulkhead = instance(name, 0, null, new Seen());
        BulkheadRejectedException other = new BulkheadRejectedException(new Rejection("other",
                Rejection.Reason.QUEUE_FULL, 7, 0, 7, 0, Duration.ZERO));

        assertThatThrownBy(() -> bulkhead.call(() -> {
            throw other;
        })).isSameAs(other);
        CompletableFuture<String> async = bulkhead.callAsync(() -> CompletableFuture.failedFuture(other));
        assertThat(async.handle((value, failure) -> failure).get(5, TimeUnit.SECONDS)).isSameAs(other);
        assertThat(bulkhead.localExecutingCount()).isZero();
    }

    @Test
    void theTranslatedRefusalKeepsTheHandlersFailureAndACancelledFutureWithdrawsItsWaiter(TestInfo test)
            throws Exception {
        String name = test.getTestMethod().orElseThrow().getName();
        IllegalStateException handlerFailure = new IllegalStateException("handler failed");
        RedisBulkhead bulkhead = redis.track(RedisBulkhead.builder(redis.newClient(), name).maxConcurrency(1)
                .maxQueue(1).commandTimeout(RedisFixture.PATIENT).leased(Duration.ofMillis(100))
                .onRejected(rejection -> {
                    throw handlerFailure;
                }).build());
        Permit held = bulkhead.acquire();
        CompletableFuture<Permit> waiting = bulkhead.acquireAsync();
        assertThat(bulkhead.localQueuedCount()).isEqualTo(1);

        BulkheadRejectedException refused = catchRefusal(bulkhead::acquire);
        assertThat(refused.getSuppressed()).containsExactly(handlerFailure);
        assertThat(refused.rejection().maxConcurrency()).isEqualTo(1);
        assertThat(refused.rejection().queuedCount()).isEqualTo(1);

        assertThat(waiting.cancel(false)).isTrue();
        assertThat(bulkhead.localQueuedCount()).isZero();
        held.close();
        assertThat(bulkhead.localExecutingCount()).isZero();
        bulkhead.acquire().close();
    }

    private static BulkheadRejectedException catchRefusal(Runnable call) {
        try {
            call.run();
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
        throw new AssertionError("the call was not refused");
    }
}
