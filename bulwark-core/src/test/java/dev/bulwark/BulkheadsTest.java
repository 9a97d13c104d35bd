package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/** Issue 7: the registry of bulkheads by name. */
class BulkheadsTest {

    @Test
    void createOrGetReturnsTheSameInstanceForTheSameConfig() {
        Bulkheads registry = Bulkheads.create();
        BulkheadConfig config = Bulkhead.builder().name("db").maxConcurrency(5).config();

        Bulkhead first = registry.bulkhead(config);
        Bulkhead second = registry.bulkhead(config);
        Bulkhead third = registry.bulkhead(config.toBuilder().config());

        assertThat(second).isSameAs(first);
        assertThat(third).isSameAs(first);
        assertThat(first.maxConcurrency()).isEqualTo(5);
        assertThat(registry.find("db")).containsSame(first);
        assertThat(registry.all()).containsExactly(first);
    }

    @Test
    void aDifferentConfigForAnExistingNameFailsLoudly() {
        Bulkheads registry = Bulkheads.create();
        registry.bulkhead(Bulkhead.builder().name("db").maxConcurrency(5).config());

        assertThatThrownBy(() -> registry.bulkhead(Bulkhead.builder().name("db").maxConcurrency(6).config()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("db")
                .hasMessageContaining("maxConcurrency=5").hasMessageContaining("maxConcurrency=6");
    }

    @Test
    void registeredBulkheadsShareTheNamespace() {
        Bulkheads registry = Bulkheads.create();
        Bulkhead own = Bulkhead.builder().name("remote").build();

        assertThat(registry.register(own)).isSameAs(own);
        assertThat(registry.register(own)).isSameAs(own);
        assertThatThrownBy(() -> registry.register(Bulkhead.builder().name("remote").build()))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> registry.bulkhead(Bulkhead.builder().name("remote").config()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("registered");
        assertThat(registry.remove("remote")).isTrue();
        assertThat(registry.remove("remote")).isFalse();
        assertThat(registry.find("remote")).isEmpty();
    }

    @Test
    void onRemovedIsToldOfEachRemoval() {
        Bulkheads registry = Bulkheads.create();
        Bulkhead a = registry.bulkhead(Bulkhead.builder().name("a").config());
        List<Bulkhead> removed = new ArrayList<>();
        Subscription subscription = registry.onRemoved(removed::add);

        registry.remove("a");
        registry.remove("a");
        subscription.close();
        registry.bulkhead(Bulkhead.builder().name("b").config());
        registry.remove("b");

        assertThat(removed).containsExactly(a);
    }

    @Test
    void onAddedSeesExistingAndLaterBulkheadsOnce() {
        Bulkheads registry = Bulkheads.create();
        Bulkhead a = registry.bulkhead(Bulkhead.builder().name("a").config());
        List<String> seen = new ArrayList<>();

        Subscription subscription = registry.onAdded(b -> seen.add(b.name()));
        registry.bulkhead(Bulkhead.builder().name("b").config());
        registry.bulkhead(a.name().equals("a") ? Bulkhead.builder().name("c").config() : null);
        subscription.close();
        registry.bulkhead(Bulkhead.builder().name("d").config());

        assertThat(seen).containsExactly("a", "b", "c");
        assertThat(registry).extracting(Bulkhead::name).containsExactly("a", "b", "c", "d");
    }

    /**
     * Issue 19's pattern in the registry: the subscription is made before the existing bulkheads are replayed to the
     * callback. A replay failure that escaped left a subscription its caller never got, so it could never be
     * closed and the failing callback was told of every later bulkhead forever.
     */
    @Test
    void aCallbackFailingOnAnExistingBulkheadIsIsolatedAndItsSubscriptionStillClosesIt() {
        Bulkheads registry = Bulkheads.create();
        registry.bulkhead(Bulkhead.builder().name("a").config());
        registry.bulkhead(Bulkhead.builder().name("b").config());
        List<String> seen = new ArrayList<>();

        Subscription subscription = registry.onAdded(bulkhead -> {
            seen.add(bulkhead.name());
            if (bulkhead.name().equals("a")) {
                throw new IllegalStateException("cannot bind a");
            }
        });
        registry.bulkhead(Bulkhead.builder().name("c").config());
        subscription.close();
        registry.bulkhead(Bulkhead.builder().name("d").config());

        assertThat(seen).containsExactly("a", "b", "c");
    }

    @Test
    void concurrentCreationOfOneNameMakesOneBulkheadAndAnnouncesItOnce() throws Exception {
        for (int round = 0; round < 100; round++) {
            Bulkheads registry = Bulkheads.create();
            BulkheadConfig config = Bulkhead.builder().name("shared").config();
            List<Bulkhead> created = new CopyOnWriteArrayList<>();
            List<Bulkhead> announced = new CopyOnWriteArrayList<>();
            CyclicBarrier barrier = new CyclicBarrier(3);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Thread thread = new Thread(() -> {
                    await(barrier);
                    created.add(registry.bulkhead(config));
                });
                thread.start();
                threads.add(thread);
            }
            Thread subscriber = new Thread(() -> {
                await(barrier);
                registry.onAdded(announced::add);
            });
            subscriber.start();
            threads.add(subscriber);
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(created).hasSize(2).allMatch(b -> b == created.get(0));
            assertThat(announced).containsExactly(created.get(0));
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
