package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Default names: found by audit, a builder drew its default name once, when it was made, so two builds of one
 * builder gave two policies one name, which collide in metrics. A builder without a name now draws a new one at
 * each build (and each bulkhead config); a name set, or copied from a config, is kept.
 */
class DefaultNamesTest {

    @Test
    void twoBulkheadsBuiltByOneUnnamedBuilderHaveDifferentNames() {
        Bulkhead.Builder builder = Bulkhead.builder().maxConcurrency(3);

        Bulkhead first = builder.build();
        Bulkhead second = builder.build();

        assertThat(first.name()).startsWith("bulkhead-");
        assertThat(second.name()).startsWith("bulkhead-").isNotEqualTo(first.name());
        assertThat(builder.config().name()).isNotIn(first.name(), second.name());
    }

    @Test
    void aNameSetOnTheBuilderIsSharedByItsBulkheads() {
        Bulkhead.Builder builder = Bulkhead.builder().name("db");

        assertThat(builder.build().name()).isEqualTo("db");
        assertThat(builder.build().name()).isEqualTo("db");
        assertThat(builder.config().name()).isEqualTo("db");
    }

    @Test
    void toBuilderKeepsTheConfigsName() {
        BulkheadConfig generated = Bulkhead.builder().config();

        Bulkhead.Builder copy = generated.toBuilder().maxConcurrency(4);

        assertThat(copy.build().name()).isEqualTo(generated.name());
        assertThat(copy.config().name()).isEqualTo(generated.name());
        assertThat(Bulkhead.builder().name("db").config().toBuilder().build().name()).isEqualTo("db");
    }

    @Test
    void twoRetriesBuiltByOneUnnamedBuilderHaveDifferentNames() {
        Retry.Builder builder = Retry.builder();

        Retry first = builder.build();
        Retry second = builder.build();

        assertThat(first.name()).startsWith("retry-");
        assertThat(second.name()).startsWith("retry-").isNotEqualTo(first.name());
        assertThat(Retry.builder().name("orders").build().name()).isEqualTo("orders");
    }

    @Test
    void twoTimeoutsBuiltByOneUnnamedBuilderHaveDifferentNames() {
        Timeout.Builder builder = Timeout.builder().timeout(Duration.ofSeconds(1));

        Timeout first = builder.build();
        Timeout second = builder.build();

        assertThat(first.name()).startsWith("timeout-");
        assertThat(second.name()).startsWith("timeout-").isNotEqualTo(first.name());
        Timeout.Builder named = Timeout.builder().name("pricing").timeout(Duration.ofSeconds(1));
        assertThat(named.build().name()).isEqualTo("pricing");
        assertThat(named.build().name()).isEqualTo("pricing");
    }

    @Test
    void twoPartitionedBulkheadsBuiltByOneUnnamedBuilderHaveDifferentNames() {
        PartitionedBulkhead.Builder<String> builder = PartitionedBulkhead.builder();
        PartitionedBulkhead.Builder<String> named = PartitionedBulkhead.<String>builder().name("tenants");

        try (PartitionedBulkhead<String> first = builder.build();
                PartitionedBulkhead<String> second = builder.build();
                PartitionedBulkhead<String> third = named.build();
                PartitionedBulkhead<String> fourth = named.build()) {
            assertThat(first.name()).startsWith("partitioned-");
            assertThat(second.name()).startsWith("partitioned-").isNotEqualTo(first.name());
            assertThat(third.name()).isEqualTo("tenants");
            assertThat(fourth.name()).isEqualTo("tenants");
        }
    }
}
