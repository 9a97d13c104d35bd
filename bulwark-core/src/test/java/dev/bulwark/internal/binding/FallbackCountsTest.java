package dev.bulwark.internal.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** What both metrics back ends count of a fallback, and the counters a binder hands out by name. */
class FallbackCountsTest {

    private final List<Class<?>> made = new ArrayList<>();

    private FallbackCounts<AtomicLong> counts() {
        return new FallbackCounts<>(type -> {
            made.add(type);
            return new AtomicLong();
        });
    }

    @Test
    void oneCountPerExceptionClassMadeTheFirstTimeItIsSeen() {
        FallbackCounts<AtomicLong> counts = counts();

        counts.of(new IllegalStateException()).incrementAndGet();
        counts.of(new IllegalStateException()).incrementAndGet();
        counts.of(new RuntimeException()).incrementAndGet();

        assertThat(made).containsExactly(IllegalStateException.class, RuntimeException.class);
        List<Long> values = new ArrayList<>();
        counts.forEach(count -> values.add(count.get()));
        assertThat(values).containsExactlyInAnyOrder(2L, 1L);
        assertThatThrownBy(() -> counts.of(null)).isInstanceOf(NullPointerException.class).hasMessage("failure");
    }

    @Test
    void closingForgetsTheCountsOnceAndNoCountIsMadeAfterIt() {
        FallbackCounts<AtomicLong> counts = counts();
        counts.of(new IllegalStateException());

        assertThat(counts.close()).isTrue();
        assertThat(counts.close()).isFalse();

        assertThat(counts.isClosed()).isTrue();
        assertThat(counts.of(new IllegalStateException())).isNull();
        assertThat(counts.of(new RuntimeException())).isNull();
        assertThat(made).containsExactly(IllegalStateException.class);
        counts.forEach(count -> made.add(Object.class));
        assertThat(made).hasSize(1);
    }

    @Test
    void noCountOutlivesACloseThatRacesItsMaking() throws Exception {
        for (int round = 0; round < 200; round++) {
            AtomicReference<FallbackCounts<AtomicLong>> self = new AtomicReference<>();
            AtomicLong madeAfterClose = new AtomicLong();
            FallbackCounts<AtomicLong> counts = new FallbackCounts<>(type -> {
                if (self.get().isClosed()) {
                    madeAfterClose.incrementAndGet();
                }
                return new AtomicLong();
            });
            self.set(counts);
            CountDownLatch start = new CountDownLatch(1);
            Thread counting = new Thread(() -> {
                await(start);
                counts.of(new IllegalStateException());
            });
            counting.start();
            start.countDown();
            counts.close();
            counting.join();

            // Made before the close (then forgotten by it) or not made at all: never left behind after it.
            List<Object> remaining = new ArrayList<>();
            counts.forEach(remaining::add);
            assertThat(remaining).isEmpty();
            assertThat(madeAfterClose).hasValue(0);
        }
    }

    @Test
    void aNameGetsTheSameCounterUntilItIsClosed() {
        FallbackCounters<List<Consumer<Object>>> counters = new FallbackCounters<>();
        List<Consumer<Object>> first = counters.get("stock", (name, forget) -> {
            List<Consumer<Object>> counter = new ArrayList<>();
            counter.add(c -> forget.accept(counter));
            return counter;
        });

        assertThat(counters.get("stock", (name, forget) -> new ArrayList<>())).isSameAs(first);
        first.get(0).accept(null); // the counter closes itself
        assertThat(counters.get("stock", (name, forget) -> new ArrayList<>())).isNotSameAs(first);
        assertThatThrownBy(() -> counters.get(" ", (name, forget) -> new ArrayList<>()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name must not be blank");
        assertThatThrownBy(() -> counters.get(null, (name, forget) -> new ArrayList<>()))
                .isInstanceOf(NullPointerException.class).hasMessage("name");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
