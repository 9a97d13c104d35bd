package dev.bulwark;

import static dev.bulwark.testing.Threads.awaitBarrier;
import static dev.bulwark.testing.Threads.awaitLatch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Attaching and detaching a bulkhead's listeners while its events are told: the bulkhead's copy-on-write
 * dispatcher. An admission being told keeps the listeners it started with; racing changes are neither lost nor
 * applied twice.
 */
class BulkheadListenerRaceTest {

    private static BulkheadListener admissions(String name, List<String> seen) {
        return new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                seen.add(name);
            }
        };
    }

    @Test
    void anAdmissionBeingToldKeepsItsListenersWhileOthersComeAndGo() throws Exception {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch inFirst = new CountDownLatch(1);
        CountDownLatch changed = new CountDownLatch(1);
        AtomicBoolean blockOnce = new AtomicBoolean(true);
        Bulkhead bulkhead = Bulkhead.builder().name("race").maxConcurrency(2).listener(new BulkheadListener() {
            @Override
            public void admitted(long waitedNanos) {
                seen.add("first");
                if (blockOnce.getAndSet(false)) {
                    inFirst.countDown();
                    awaitLatch(changed);
                }
            }
        }).build();
        Subscription second = bulkhead.addListener(admissions("second", seen));

        CompletableFuture<Integer> call = CompletableFuture.supplyAsync(() -> bulkhead.call(() -> 1));
        assertThat(inFirst.await(10, TimeUnit.SECONDS)).isTrue();
        // Forced interleaving: the admission is being told to the first listener. Detaching the second and attaching
        // a third wait for nothing, and the admission goes on to the listeners it began with.
        second.close();
        Subscription third = bulkhead.addListener(admissions("third", seen));
        changed.countDown();
        assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        seen.add("|");
        bulkhead.call(() -> 2);
        third.close();

        assertThat(seen).containsExactly("first", "second", "|", "first", "third");
    }

    @Test
    void racingAttachesAndDetachesAreNeitherLostNorDoubled() throws Exception {
        int threads = 4;
        int perThread = 300;
        Bulkhead bulkhead = Bulkhead.builder().name("race-many").maxConcurrency(threads + 1).build();
        AtomicInteger told = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            List<CompletableFuture<Void>> changers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                changers.add(CompletableFuture.runAsync(() -> {
                    awaitBarrier(start);
                    for (int i = 0; i < perThread; i++) {
                        Subscription subscription = bulkhead.addListener(new BulkheadListener() {
                            @Override
                            public void rejected(Rejection rejection) {
                                told.incrementAndGet();
                            }
                        });
                        if (i % 2 == 0) {
                            subscription.close();
                            subscription.close();
                        }
                    }
                }, pool));
            }
            // Calls go on meanwhile, each one reading whichever dispatcher is current.
            CompletableFuture<Void> caller = CompletableFuture.runAsync(() -> {
                awaitBarrier(start);
                while (!done.get()) {
                    bulkhead.call(() -> 0);
                }
            }, pool);
            CompletableFuture.allOf(changers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            done.set(true);
            caller.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        // One refusal, told to every listener still attached: exactly the ones never detached.
        bulkhead.close();
        assertThatThrownBy(() -> bulkhead.call(() -> 0)).isInstanceOf(BulkheadRejectedException.class);
        assertThat(told).hasValue(threads * perThread / 2);
    }
}
