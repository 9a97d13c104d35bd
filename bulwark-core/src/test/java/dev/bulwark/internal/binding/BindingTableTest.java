package dev.bulwark.internal.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Subscription;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The binding life cycle both metrics back ends share: one live binding per kind and name, release exactly once (on
 * close, on a failed attach, or once the policy is collected), and a name free again afterwards.
 */
class BindingTableTest {

    /** What a back end registers for one policy: here, a count of its releases. */
    private static final class Series {
        final AtomicInteger releases = new AtomicInteger();
    }

    private static final class Listener extends AttachedListener {
        final AtomicInteger detached = new AtomicInteger();
    }

    private final BindingTable<Series> table =
            new BindingTable<>("binding", "test back end", "bulwark-test-cleaner", s -> s.releases.incrementAndGet());

    private Subscription bind(String kind, String name, Object policy, Series series, Listener listener) {
        return table.bind(kind, name, policy, series, s -> {
            listener.attachedBy(listener.detached::incrementAndGet);
            return listener;
        });
    }

    @Test
    void aLiveNameIsBoundOnceAndClosingReleasesOnceAndFreesIt() {
        Object policy = new Object();
        Series first = new Series();
        Listener listener = new Listener();
        Subscription binding = bind("bulkhead", "db", policy, first, listener);

        assertThatThrownBy(() -> bind("bulkhead", "db", policy, new Series(), new Listener()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("The bulkhead 'db' is already bound to this test back end: bind a policy once, or close"
                        + " the earlier binding first");
        assertThat(binding).hasToString("binding of bulkhead 'db'");
        // Another kind may use the same name.
        bind("retry", "db", new Object(), new Series(), new Listener());

        binding.close();
        binding.close();

        assertThat(first.releases).hasValue(1);
        assertThat(listener.detached).hasValue(1);
        assertThat(binding).hasToString("binding of bulkhead 'db' (closed)");
        Series second = new Series();
        Subscription again = bind("bulkhead", "db", policy, second, new Listener());
        // The earlier binding's late close must not unbind its successor.
        binding.close();
        assertThat(second.releases).hasValue(0);
        assertThatThrownBy(() -> bind("bulkhead", "db", policy, new Series(), new Listener()))
                .isInstanceOf(IllegalStateException.class);
        again.close();
        assertThat(second.releases).hasValue(1);
    }

    @Test
    void aFailedAttachReleasesWhatWasRegisteredAndLeavesTheNameFree() {
        Series series = new Series();
        IllegalArgumentException failure = new IllegalArgumentException("refused");

        assertThatThrownBy(() -> table.bind("timeout", "t", new Object(), series, s -> {
            throw failure;
        })).isSameAs(failure);

        assertThat(series.releases).hasValue(1);
        bind("timeout", "t", new Object(), new Series(), new Listener()).close();
    }

    @Test
    void aCollectedPolicyIsReleasedOnceAndItsNameCanBeBoundAgain() {
        Series stale = new Series();
        WeakReference<Object> reference = bindAndDrop(stale);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            System.gc();
            return reference.get() == null;
        });

        // Whether the cleaner or the new binding releases the stale series first, it is released exactly once.
        Series fresh = new Series();
        Subscription binding = bind("bulkhead", "gone", new Object(), fresh, new Listener());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(stale.releases).hasValue(1));
        assertThat(fresh.releases).hasValue(0);
        binding.close();
        assertThat(stale.releases).hasValue(1);
    }

    private WeakReference<Object> bindAndDrop(Series series) {
        Object policy = new Object();
        bind("bulkhead", "gone", policy, series, new Listener());
        return new WeakReference<>(policy);
    }

    @Test
    void ofConcurrentBindingsOfOneNameExactlyOneWins() throws Exception {
        int threads = 4;
        List<Object> policies = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            policies.add(new Object());
        }
        for (int round = 0; round < 200; round++) {
            String name = "race-" + round;
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger won = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            List<Thread> racers = new ArrayList<>();
            for (Object policy : policies) {
                Thread racer = new Thread(() -> {
                    try {
                        start.await();
                        bind("bulkhead", name, policy, new Series(), new Listener());
                        won.incrementAndGet();
                    } catch (IllegalStateException alreadyBound) {
                        refused.incrementAndGet();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                racer.start();
                racers.add(racer);
            }
            start.countDown();
            for (Thread racer : racers) {
                racer.join();
            }
            assertThat(won).as("round %d", round).hasValue(1);
            assertThat(refused).hasValue(threads - 1);
        }
    }
}
