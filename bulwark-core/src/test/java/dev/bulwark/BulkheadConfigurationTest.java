package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Behaviour 18 (bad configuration fails fast) and the defaults. */
class BulkheadConfigurationTest {

    @Test
    void defaultsFollowTheSeeds() {
        Bulkhead bulkhead = Bulkhead.builder().build();

        assertThat(bulkhead.maxConcurrency()).isEqualTo(10);
        assertThat(bulkhead.maxQueue()).isZero();
        assertThat(bulkhead.maxWait()).isEmpty();
        assertThat(bulkhead.name()).startsWith("bulkhead-");
        assertThat(Bulkhead.builder().build().name()).isNotEqualTo(bulkhead.name());
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void builderValuesAreKept() {
        Bulkhead bulkhead = Bulkhead.builder().name("inventory-db").maxConcurrency(3).maxQueue(7)
                .maxWait(Duration.ofMillis(250)).build();

        assertThat(bulkhead.name()).isEqualTo("inventory-db");
        assertThat(bulkhead.maxConcurrency()).isEqualTo(3);
        assertThat(bulkhead.maxQueue()).isEqualTo(7);
        assertThat(bulkhead.maxWait()).contains(Duration.ofMillis(250));
    }

    @Test
    void badLimitsFailNamingParameterAndValue() {
        assertThatThrownBy(() -> Bulkhead.builder().maxConcurrency(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxConcurrency must be at least 1 but was 0");
        assertThatThrownBy(() -> Bulkhead.of(-5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxConcurrency must be at least 1 but was -5");
        assertThatThrownBy(() -> Bulkhead.builder().maxQueue(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxQueue must not be negative but was -1");
        assertThatThrownBy(() -> Bulkhead.builder().maxWait(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxWait must be positive but was PT0S");
        assertThatThrownBy(() -> Bulkhead.builder().maxWait(Duration.ofMillis(-3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait")
                .hasMessageContaining("-0.003");
        assertThatThrownBy(() -> Bulkhead.builder().name(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
    }

    @Test
    void nullArgumentsFailNamingTheParameter() {
        Bulkhead bulkhead = Bulkhead.of(1);
        assertThatThrownBy(() -> Bulkhead.builder().name(null)).hasMessage("name");
        assertThatThrownBy(() -> Bulkhead.builder().maxWait(null)).hasMessage("maxWait");
        assertThatThrownBy(() -> Bulkhead.builder().onRejected(null)).hasMessage("handler");
        assertThatThrownBy(() -> Bulkhead.builder().listener(null)).hasMessage("listener");
        assertThatThrownBy(() -> Bulkhead.builder().ticker(null)).hasMessage("ticker");
        assertThatThrownBy(() -> Bulkhead.builder().scheduler(null)).hasMessage("scheduler");
        assertThatThrownBy(() -> Bulkhead.of((BulkheadConfig) null)).hasMessage("config");
        assertThatThrownBy(() -> bulkhead.call(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("operation");
        assertThatThrownBy(() -> bulkhead.call(() -> 1, null)).isInstanceOf(NullPointerException.class)
                .hasMessage("signal");
        assertThatThrownBy(() -> bulkhead.run(null)).hasMessage("operation");
        assertThatThrownBy(() -> bulkhead.callAsync(null)).hasMessage("operation");
        assertThatThrownBy(() -> bulkhead.callAsync(() -> null, null)).hasMessage("signal");
        assertThatThrownBy(() -> bulkhead.acquire(null)).hasMessage("signal");
        assertThatThrownBy(() -> bulkhead.acquireAsync(null)).hasMessage("signal");
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void maxQueueOfIntegerMaxValueDoesNotOverflow() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(Integer.MAX_VALUE).build();
        Permit holder = bulkhead.acquire();
        var queued = bulkhead.acquireAsync();
        assertThat(bulkhead.queuedCount()).isEqualTo(1);
        holder.close();
        queued.join().close();
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Test
    void maxConcurrencyOfIntegerMaxValueWorks() {
        Bulkhead bulkhead = Bulkhead.of(Integer.MAX_VALUE);
        assertThat(bulkhead.call(bulkhead::executingCount)).isEqualTo(1);
        bulkhead.changeMaxConcurrency(1);
        bulkhead.changeMaxConcurrency(Integer.MAX_VALUE);
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void anEnormousMaxWaitMeansNoPracticalBound() {
        Bulkhead bulkhead = Bulkhead.builder().maxConcurrency(1).maxQueue(1).maxWait(Duration.ofDays(365L * 1000))
                .build();
        Permit holder = bulkhead.acquire();
        var queued = bulkhead.acquireAsync();
        assertThat(queued).isNotDone();
        holder.close();
        queued.join().close();
        assertThat(bulkhead.executingCount()).isZero();
    }

    @Test
    void configIsAnImmutableValue() {
        Consumer<Rejection> handler = r -> { };
        Bulkhead.Builder builder = Bulkhead.builder().name("a").maxConcurrency(2).onRejected(handler);
        BulkheadConfig config = builder.config();
        builder.maxConcurrency(5);

        assertThat(config.maxConcurrency()).isEqualTo(2);
        assertThat(config.name()).isEqualTo("a");
        assertThat(config.rejectionHandler()).containsSame(handler);
        assertThat(config).isEqualTo(config.toBuilder().config());
        assertThat(config).isNotEqualTo(config.toBuilder().maxQueue(1).config());
        assertThat(config.toString()).contains("a", "maxConcurrency=2");
        assertThat(Bulkhead.of(config).maxConcurrency()).isEqualTo(2);
    }
}
