package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.testing.FakeTicker;
import dev.bulwark.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 15 item 4: an adaptive limit with a queue and a maximum wait, in FIFO and LIFO order. A closed loop of
 * 40 callers against a resource of capacity 10 that slows with the square of its overload, in fake time: each step
 * lasts as long as the calls in flight take, then they all end, hand their slots to waiters (in the queue's
 * order), and the waiters that waited too long time out on the scheduler. The limit settles near the capacity,
 * the queue stays within its bound, and no more calls run than the highest limit so far.
 */
class AdaptiveLimitWithQueueTest {

    private static final int CAPACITY = 10;
    private static final int CALLERS = 40;
    private static final int MAX_QUEUE = 30;

    static Stream<Arguments> limits() {
        AdaptiveLimit aimd = AdaptiveLimit.aimd().minLimit(1).maxLimit(100).windowSamples(20)
                .latencyThreshold(Duration.ofMillis(15)).build();
        AdaptiveLimit gradient = AdaptiveLimit.gradient().minLimit(1).maxLimit(100).windowSamples(20).build();
        AdaptiveLimit selfTuning = AdaptiveLimit.selfTuning().maxLimit(100).build();
        return Stream.of(Arguments.of("selfTuning", selfTuning, QueueOrder.FIFO),
                Arguments.of("selfTuning", selfTuning, QueueOrder.LIFO),
                Arguments.of("aimd", aimd, QueueOrder.FIFO),
                Arguments.of("aimd", aimd, QueueOrder.LIFO),
                Arguments.of("gradient", gradient, QueueOrder.FIFO),
                Arguments.of("gradient", gradient, QueueOrder.LIFO));
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("limits")
    void settlesNearTheCapacityWithAQueueAndAMaximumWait(String name, AdaptiveLimit limit, QueueOrder order) {
        FakeTicker ticker = new FakeTicker();
        ManualScheduler scheduler = new ManualScheduler(ticker);
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(2).maxQueue(MAX_QUEUE)
                .maxWait(Duration.ofMillis(40)).queueOrder(order).ticker(ticker).scheduler(scheduler)
                .adaptive(limit).build();
        List<CompletableFuture<Permit>> callers = new ArrayList<>();
        List<Integer> settled = new ArrayList<>();
        int highestLimit = bulkhead.maxConcurrency();
        long timedOut = 0;
        long refusedFull = 0;

        for (int step = 0; step < 3000; step++) {
            while (callers.size() < CALLERS) {
                callers.add(bulkhead.acquireAsync());
            }
            int running = bulkhead.executingCount();
            assertThat(running).isLessThanOrEqualTo(highestLimit);
            assertThat(bulkhead.queuedCount()).isLessThanOrEqualTo(MAX_QUEUE);
            double overload = Math.max(1.0, (double) running / CAPACITY);
            scheduler.advance(Duration.ofNanos((long) (10_000_000L * overload * overload)));
            List<Permit> granted = new ArrayList<>();
            for (CompletableFuture<Permit> caller : callers) {
                if (caller.isDone() && !caller.isCompletedExceptionally()) {
                    granted.add(caller.join());
                } else if (caller.isCompletedExceptionally()) {
                    Rejection.Reason reason = caller.handle((permit, failure) ->
                            ((BulkheadRejectedException) failure).rejection().reason()).join();
                    if (reason == Rejection.Reason.WAIT_TIMEOUT) {
                        timedOut++;
                    } else {
                        // A full FIFO queue refuses the newcomer; a full LIFO queue evicts its oldest waiter.
                        assertThat(reason).isEqualTo(order == QueueOrder.FIFO ? Rejection.Reason.QUEUE_FULL
                                : Rejection.Reason.EVICTED);
                        refusedFull++;
                    }
                }
            }
            callers.removeIf(CompletableFuture::isDone);
            // The calls that were running when the step began end now; their slots go to waiters in queue order.
            granted.forEach(Permit::close);
            highestLimit = Math.max(highestLimit, bulkhead.maxConcurrency());
            assertThat(bulkhead.maxConcurrency()).isBetween(1, 100);
            if (step >= 1500) {
                settled.add(bulkhead.maxConcurrency());
            }
        }

        Collections.sort(settled);
        // AIMD crosses its 15 ms threshold at 13 in flight (16.9 ms), the gradient its tolerance at about 11.
        assertThat(settled.get(settled.size() / 2)).as("median limit").isBetween(CAPACITY - 2, CAPACITY + 4);
        assertThat(timedOut + refusedFull).as("40 callers, a queue of 30: some were turned away").isPositive();
        assertThat(timedOut).as("the maximum wait was applied").isPositive();
    }
}
