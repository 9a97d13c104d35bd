package dev.bulwark.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.Bulkheads;
import dev.bulwark.Retry;
import dev.bulwark.Subscription;
import dev.bulwark.Timeout;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 7: binding is undone by closing, never keeps a dropped policy alive, binds a name once, and a
 * {@link Bulkheads} registry binds its present and future bulkheads.
 */
class BindingLifecycleTest {

    static Stream<MeterRegistry> registries() {
        return Stream.of(new SimpleMeterRegistry(), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BulwarkMetrics metrics = BulwarkMetrics.of(registry);

    @Test
    void closingRemovesTheMetersAndDetachesTheListener() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").build();
        Subscription binding = metrics.bind(bulkhead);
        bulkhead.call(() -> 1);
        FunctionCounter admitted = registry.get("bulwark.bulkhead.calls").tags("outcome", "admitted")
                .functionCounter();
        assertThat(admitted.count()).isEqualTo(1.0);

        binding.close();
        bulkhead.call(() -> 2);
        binding.close();

        assertThat(registry.getMeters()).isEmpty();
        assertThat(admitted.count()).as("the detached listener counts nothing more").isEqualTo(1.0);
    }

    @Test
    void aNameIsBoundOnceAndCanBeBoundAgainAfterClosing() {
        Bulkhead bulkhead = Bulkhead.builder().name("db").build();
        Subscription binding = metrics.bind(bulkhead);

        assertThatThrownBy(() -> metrics.bind(bulkhead)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bulkhead 'db' is already bound");
        assertThatThrownBy(() -> metrics.bind(Bulkhead.builder().name("db").build()))
                .isInstanceOf(IllegalStateException.class);
        bulkhead.call(() -> 1);
        assertThat(registry.get("bulwark.bulkhead.calls").tags("outcome", "admitted").functionCounter().count())
                .as("a refused second binding attached no second listener").isEqualTo(1.0);

        binding.close();
        Bulkhead successor = Bulkhead.builder().name("db").maxConcurrency(7).build();
        metrics.bind(successor);
        assertThat(registry.get("bulwark.bulkhead.max.concurrency").gauge().value()).isEqualTo(7.0);
    }

    @Test
    void policiesOfDifferentKindsMayShareAName() {
        metrics.bind(Bulkhead.builder().name("orders").build());
        metrics.bind(Retry.builder().name("orders").build());
        metrics.bind(Timeout.builder().name("orders").timeout(Duration.ofSeconds(1)).build());

        assertThat(registry.find("bulwark.retry.calls").tags("name", "orders").counters()).isNotEmpty();
        assertThat(registry.find("bulwark.timeout.calls").tags("name", "orders").counters()).isNotEmpty();
    }

    @Test
    void closingARetryOrTimeoutBindingRemovesItsMeters() {
        Subscription retry = metrics.bind(Retry.builder().name("orders").build());
        Subscription timeout = metrics.bind(Timeout.builder().name("pricing").timeout(Duration.ofSeconds(1)).build());
        assertThat(registry.getMeters()).isNotEmpty();

        retry.close();
        timeout.close();

        assertThat(registry.getMeters()).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("registries")
    void aDroppedBoundBulkheadIsCollectedAndItsMetersRemoved(MeterRegistry meterRegistry) {
        BulwarkMetrics bulwarkMetrics = BulwarkMetrics.of(meterRegistry);
        Bulkhead bulkhead = Bulkhead.builder().name("tenant-42").build();
        // The binding is kept on purpose: holding it must not keep the bulkhead alive either.
        Subscription binding = bulwarkMetrics.bind(bulkhead);
        bulkhead.call(() -> 1);
        WeakReference<Bulkhead> reference = new WeakReference<>(bulkhead);
        bulkhead = null;

        awaitCollected(reference);

        await().atMost(Duration.ofSeconds(30)).until(() -> meterRegistry.find("bulwark.bulkhead.executing")
                .tags("name", "tenant-42").gauge() == null);
        assertThat(meterRegistry.getMeters()).isEmpty();
        // Once collected, the name is free again, and closing the old binding touches nothing new.
        Bulkhead successor = Bulkhead.builder().name("tenant-42").maxConcurrency(3).build();
        bulwarkMetrics.bind(successor);
        binding.close();
        assertThat(meterRegistry.get("bulwark.bulkhead.max.concurrency").gauge().value()).isEqualTo(3.0);
    }

    @Test
    void aBulkheadRemovedFromABoundRegistryIsCollected() {
        Bulkheads bulkheads = Bulkheads.create();
        Subscription binding = metrics.bind(bulkheads);
        WeakReference<Bulkhead> reference = new WeakReference<>(
                bulkheads.bulkhead(Bulkhead.builder().name("tenant-7").config()));
        assertThat(registry.find("bulwark.bulkhead.executing").tags("name", "tenant-7").gauge()).isNotNull();

        bulkheads.remove("tenant-7");
        awaitCollected(reference);

        await().atMost(Duration.ofSeconds(30)).until(() -> registry.getMeters().isEmpty());
        binding.close();
    }

    @Test
    void aBulkheadRemovedFromABoundRegistryLosesItsMetersAtOnce() {
        Bulkheads bulkheads = Bulkheads.create();
        Subscription binding = metrics.bind(bulkheads);
        Bulkhead kept = bulkheads.bulkhead(Bulkhead.builder().name("kept").config());
        Bulkhead removed = bulkheads.bulkhead(Bulkhead.builder().name("removed").config());
        assertThat(names("bulwark.bulkhead.max.concurrency")).containsExactlyInAnyOrder("kept", "removed");

        bulkheads.remove("removed");

        // No garbage collection needed: the removal itself unbinds, even while the bulkhead is still referenced.
        assertThat(names("bulwark.bulkhead.max.concurrency")).containsExactly("kept");
        removed.call(() -> 1);
        assertThat(registry.find("bulwark.bulkhead.calls").tags("name", "removed").functionCounter()).isNull();
        kept.call(() -> 1);
        binding.close();
    }

    @Test
    void aBoundRegistryBindsItsPresentAndFutureBulkheadsUntilClosed() {
        Bulkheads bulkheads = Bulkheads.create();
        BulkheadConfig inventory = Bulkhead.builder().name("inventory-db").config();
        bulkheads.bulkhead(inventory);

        Subscription binding = metrics.bind(bulkheads);
        bulkheads.bulkhead(Bulkhead.builder().name("payments").config());
        bulkheads.bulkhead(inventory).call(() -> 1);

        assertThat(names("bulwark.bulkhead.max.concurrency")).containsExactlyInAnyOrder("inventory-db", "payments");
        assertThat(registry.get("bulwark.bulkhead.calls").tags("name", "inventory-db", "outcome", "admitted")
                .functionCounter().count()).isEqualTo(1.0);

        binding.close();
        bulkheads.bulkhead(Bulkhead.builder().name("late").config());
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void aRegistryBulkheadAlreadyBoundByHandIsSkippedNotDoubled() {
        Bulkheads bulkheads = Bulkheads.create();
        Bulkhead inventory = bulkheads.bulkhead(Bulkhead.builder().name("inventory-db").config());
        metrics.bind(inventory);

        Subscription binding = metrics.bind(bulkheads);
        inventory.call(() -> 1);

        assertThat(registry.get("bulwark.bulkhead.calls").tags("name", "inventory-db", "outcome", "admitted")
                .functionCounter().count()).isEqualTo(1.0);
        binding.close();
        assertThat(registry.find("bulwark.bulkhead.calls").functionCounters())
                .as("the hand-made binding is not the registry binding's to close").isNotEmpty();
    }

    @Test
    void badArgumentsFailAtOnceNamingTheParameter() {
        assertThatThrownBy(() -> BulwarkMetrics.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("registry");
        assertThatThrownBy(() -> BulwarkMetrics.of(registry, Tags.of("name", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'name'");
        for (String reserved : List.of("outcome", "exception", "phi", "priority")) {
            assertThatThrownBy(() -> BulwarkMetrics.of(registry, Tags.of(reserved, "x"))).as(reserved)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + reserved + "'");
        }
        assertThat(BulwarkMetrics.of(registry, Tags.of("region", "eu"))).isNotNull();
        assertThatThrownBy(() -> metrics.bind((Bulkhead) null)).isInstanceOf(NullPointerException.class)
                .hasMessage("bulkhead");
        assertThatThrownBy(() -> metrics.fallbackCounter(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
    }

    private List<String> names(String meterName) {
        return registry.find(meterName).gauges().stream().map(gauge -> gauge.getId().getTag("name")).toList();
    }

    private static void awaitCollected(WeakReference<?> reference) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
            System.gc();
            return reference.get() == null;
        });
    }
}
