package dev.bulwark.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.testing.CountingListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Issue 10: many threads subscribing, completing, failing and cancelling at once never run more sources than the
 * limit, and every slot taken is released exactly once. Asserts invariants, not timings.
 */
class OperatorStressTest {

    private static final int THREADS = 4;
    private static final int ROUNDS = 500;
    private static final int LIMIT = 3;

    @Test
    void theLimitHoldsAndEverySlotIsReleasedOnceUnderConcurrentCompleteErrorAndCancel() throws Exception {
        CountingListener events = new CountingListener();
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(LIMIT).maxQueue(8).listener(events).build();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        AtomicInteger subscribedSources = new AtomicInteger();
        AtomicInteger endedSources = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        List<Future<List<Sinks.One<Integer>>>> results = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                results.add(threads.submit(() -> {
                    start.await();
                    List<Sinks.One<Integer>> open = new ArrayList<>();
                    for (int i = 0; i < ROUNDS; i++) {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        Sinks.One<Integer> sink = Sinks.one();
                        // A source runs from its subscription until it signals its end or is told to cancel
                        // (counted before the signal travels on, so before the slot can be handed over).
                        AtomicBoolean ended = new AtomicBoolean();
                        Runnable end = () -> {
                            if (ended.compareAndSet(false, true)) {
                                running.decrementAndGet();
                                endedSources.incrementAndGet();
                            }
                        };
                        Mono<Integer> source = sink.asMono().doOnSubscribe(s -> {
                            subscribedSources.incrementAndGet();
                            mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                        }).doOnTerminate(end).doOnCancel(end);
                        Disposable subscription = source.transformDeferred(BulwarkOperators.bulkhead(bulkhead))
                                .subscribe(value -> { }, failure -> { });
                        switch (random.nextInt(4)) {
                            case 0 -> sink.tryEmitValue(i);
                            case 1 -> sink.tryEmitError(new IllegalStateException("failed " + i));
                            case 2 -> subscription.dispose();
                            default -> open.add(sink);
                        }
                        if (open.size() > 2) {
                            open.remove(random.nextInt(open.size())).tryEmitValue(i);
                        }
                    }
                    return open;
                }));
            }
            for (Future<List<Sinks.One<Integer>>> result : results) {
                for (Sinks.One<Integer> sink : result.get(60, TimeUnit.SECONDS)) {
                    sink.tryEmitValue(0);
                }
            }
        } finally {
            threads.shutdownNow();
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> bulkhead.executingCount() == 0
                && bulkhead.queuedCount() == 0);
        assertThat(mostRunning.get()).as("sources running at once").isLessThanOrEqualTo(LIMIT);
        assertThat(events.released.get()).as("every admitted subscription released its slot once")
                .isEqualTo(events.admitted.get());
        // A slot granted (by a releasing thread) to a subscription that its owner disposes at that instant is
        // admitted and released without subscribing the source (the operator abandons the attempt it sees
        // cancelled), so admissions can exceed subscriptions; never the other way round.
        assertThat(subscribedSources.get()).as("a source is subscribed only once a slot is granted")
                .isLessThanOrEqualTo(events.admitted.get());
        assertThat(endedSources.get()).isEqualTo(subscribedSources.get());
        assertThat(events.admitted.get() + events.rejected.get() + events.cancelled.get())
                .as("each subscription was admitted, refused or cancelled while queued").isEqualTo(THREADS * ROUNDS);
    }
}
