package dev.bulwark.internal.util;

import static dev.bulwark.testing.Threads.awaitBarrier;
import static dev.bulwark.testing.Threads.awaitLatch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Subscription;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * Attaching and detaching while events are told: the copy-on-write invariant of {@link ListenerList}. A walk in
 * progress sees the array it started with; racing changes are neither lost nor applied twice; no event reaches a
 * listener twice.
 */
class ListenerListRaceTest {

    private static final String LOGGER = "dev.bulwark.test.ListenerListRaceTest";

    /** Counts the events it hears, and fails the test (through {@link #twice}) on one heard twice. */
    private static final class Counting implements LongConsumer {
        final AtomicLong lastEvent = new AtomicLong(-1);
        final AtomicInteger heard = new AtomicInteger();
        final AtomicBoolean twice;

        Counting(AtomicBoolean twice) {
            this.twice = twice;
        }

        @Override
        public void accept(long event) {
            heard.incrementAndGet();
            long before = lastEvent.getAndSet(event);
            if (before >= event) {
                twice.set(true); // events are told in increasing order by one thread: never the same one again
            }
        }
    }

    @Test
    void aWalkInProgressKeepsItsArrayWhileListenersComeAndGo() throws Exception {
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch inFirst = new CountDownLatch(1);
        CountDownLatch changed = new CountDownLatch(1);
        ListenerList<LongConsumer> list = new ListenerList<>(LOGGER, "", "race", List.of());
        list.add(event -> {
            seen.add("first:" + event);
            if (event == 1) {
                inFirst.countDown();
                awaitLatch(changed);
            }
        });
        Subscription second = list.add(event -> seen.add("second:" + event));

        CompletableFuture<Void> walk = CompletableFuture.runAsync(() -> list.each("e", listener -> listener.accept(1)));
        assertThat(inFirst.await(10, TimeUnit.SECONDS)).isTrue();
        // Forced interleaving: the walk is inside the first listener. Detach the second, attach a third: neither
        // waits for the walk (no lock), and the walk goes on over the array it began with.
        second.close();
        list.add(event -> seen.add("third:" + event));
        changed.countDown();
        walk.get(10, TimeUnit.SECONDS);
        list.each("e", listener -> listener.accept(2));

        assertThat(seen).containsExactly("first:1", "second:1", "first:2", "third:2");
    }

    @Test
    void racingAttachesAndDetachesAreNeitherLostNorDoubledAndNoEventIsHeardTwice() throws Exception {
        int threads = 4;
        int perThread = 500;
        AtomicBoolean twice = new AtomicBoolean();
        ListenerList<LongConsumer> list = new ListenerList<>(LOGGER, "", "race", List.of());
        List<List<Counting>> kept = new ArrayList<>();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            List<CompletableFuture<Void>> changers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<Counting> mine = new ArrayList<>();
                kept.add(mine);
                changers.add(CompletableFuture.runAsync(() -> {
                    awaitBarrier(start);
                    for (int i = 0; i < perThread; i++) {
                        Counting listener = new Counting(twice);
                        Subscription subscription = list.add(listener);
                        if (i % 2 == 0) {
                            subscription.close();
                            subscription.close(); // idempotent: must not detach anything else
                        } else {
                            mine.add(listener);
                        }
                    }
                }, pool));
            }
            AtomicLong events = new AtomicLong();
            CompletableFuture<Void> teller = CompletableFuture.runAsync(() -> {
                awaitBarrier(start);
                while (!done.get()) {
                    long event = events.getAndIncrement();
                    list.each("e", listener -> listener.accept(event));
                }
            }, pool);
            CompletableFuture.allOf(changers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            done.set(true);
            teller.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        List<Counting> survivors = kept.stream().flatMap(List::stream).toList();
        survivors.forEach(listener -> listener.heard.set(0));
        AtomicInteger told = new AtomicInteger();
        list.each("last", listener -> {
            told.incrementAndGet();
            listener.accept(Long.MAX_VALUE);
        });
        assertThat(twice).as("an event heard twice by one listener").isFalse();
        assertThat(told).as("every kept listener, and only those").hasValue(threads * perThread / 2);
        assertThat(survivors).allSatisfy(listener -> assertThat(listener.heard).hasValue(1));
    }
}
