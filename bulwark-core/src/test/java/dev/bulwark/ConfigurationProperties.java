package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Property-based checks of configuration validation: every value is either accepted and kept exactly, or refused at
 * once with an exception naming the parameter and the value, both in the builders and in the run-time changes, and a
 * refused run-time change leaves the bulkhead as it was.
 */
class ConfigurationProperties {

    @Property
    void maxConcurrencyIsAcceptedExactlyFromOne(@ForAll int value) {
        String message = "maxConcurrency must be at least 1 but was " + value;
        Bulkhead bulkhead = Bulkhead.of(3);
        if (value >= 1) {
            assertThat(Bulkhead.builder().maxConcurrency(value).config().maxConcurrency()).isEqualTo(value);
            bulkhead.changeMaxConcurrency(value);
            assertThat(bulkhead.maxConcurrency()).isEqualTo(value);
        } else {
            assertThatThrownBy(() -> Bulkhead.builder().maxConcurrency(value))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
            assertThatThrownBy(() -> Bulkhead.of(value)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
            assertThatThrownBy(() -> bulkhead.changeMaxConcurrency(value))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
            assertThat(bulkhead.maxConcurrency()).isEqualTo(3);
        }
    }

    @Property
    void maxQueueIsAcceptedExactlyFromZero(@ForAll int value) {
        Bulkhead bulkhead = Bulkhead.builder().maxQueue(2).build();
        if (value >= 0) {
            assertThat(Bulkhead.builder().maxQueue(value).config().maxQueue()).isEqualTo(value);
            bulkhead.changeMaxQueue(value);
            assertThat(bulkhead.maxQueue()).isEqualTo(value);
        } else {
            String message = "maxQueue must not be negative but was " + value;
            assertThatThrownBy(() -> Bulkhead.builder().maxQueue(value)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
            assertThatThrownBy(() -> bulkhead.changeMaxQueue(value)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
            assertThat(bulkhead.maxQueue()).isEqualTo(2);
        }
    }

    @Property
    void durationsAreAcceptedExactlyWhenPositive(@ForAll("durations") Duration value) {
        Bulkhead bulkhead = Bulkhead.builder().maxWait(Duration.ofSeconds(1)).build();
        if (!value.isNegative() && !value.isZero()) {
            assertThat(Bulkhead.builder().maxWait(value).config().maxWait()).contains(value);
            bulkhead.changeMaxWait(value);
            assertThat(bulkhead.maxWait()).contains(value);
            assertThat(Timeout.of(value).timeout()).isEqualTo(value);
            assertThat(Retry.builder().delay(value).build()).isNotNull();
        } else {
            String message = "maxWait must be positive but was " + value;
            assertThatThrownBy(() -> Bulkhead.builder().maxWait(value)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
            assertThatThrownBy(() -> bulkhead.changeMaxWait(value)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
            assertThat(bulkhead.maxWait()).contains(Duration.ofSeconds(1));
            assertThatThrownBy(() -> Timeout.of(value)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must be positive but was " + value);
            assertThatThrownBy(() -> Retry.builder().delay(value)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("delay must be positive but was " + value);
        }
    }

    @Property
    void namesAreAcceptedExactlyWhenNotBlank(@ForAll("names") String name) {
        if (!name.isBlank()) {
            assertThat(Bulkhead.builder().name(name).build().name()).isEqualTo(name);
            assertThat(Timeout.builder().name(name).timeout(Duration.ofSeconds(1)).build().name()).isEqualTo(name);
            assertThat(Retry.builder().name(name).build().name()).isEqualTo(name);
        } else {
            assertThatThrownBy(() -> Bulkhead.builder().name(name)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("name must not be blank but was '" + name + "'");
            assertThatThrownBy(() -> Retry.builder().name(name)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
        }
    }

    @Property
    void retryCountsAndJitterAreCheckedAndNamed(@ForAll int maxRetries, @ForAll double jitter) {
        if (maxRetries >= 0) {
            assertThat(Retry.builder().maxRetries(maxRetries).build().maxRetries()).isEqualTo(maxRetries);
        } else {
            assertThatThrownBy(() -> Retry.builder().maxRetries(maxRetries))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxRetries must not be negative but was " + maxRetries);
        }
        if (jitter >= 0.0 && jitter <= 1.0) {
            assertThat(Retry.builder().jitter(jitter).build()).isNotNull();
        } else {
            assertThatThrownBy(() -> Retry.builder().jitter(jitter)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("jitter must be between 0 and 1 but was " + jitter);
        }
    }

    @Property
    void aConfigurationRoundTripsThroughItsBuilder(@ForAll @IntRange(min = 1) int maxConcurrency,
                                                   @ForAll @IntRange(min = 0) int maxQueue,
                                                   @ForAll("positiveDurations") Duration maxWait,
                                                   @ForAll("names") String name) {
        if (name.isBlank()) {
            return;
        }
        BulkheadConfig config = Bulkhead.builder().name(name).maxConcurrency(maxConcurrency).maxQueue(maxQueue)
                .maxWait(maxWait).config();

        assertThat(config.toBuilder().config()).isEqualTo(config).hasSameHashCodeAs(config);
        Bulkhead bulkhead = Bulkhead.of(config);
        assertThat(bulkhead.name()).isEqualTo(name);
        assertThat(bulkhead.maxConcurrency()).isEqualTo(maxConcurrency);
        assertThat(bulkhead.maxQueue()).isEqualTo(maxQueue);
        assertThat(bulkhead.maxWait()).contains(maxWait);
        assertThat(bulkhead.executingCount()).isZero();
        assertThat(bulkhead.queuedCount()).isZero();
    }

    @Provide
    Arbitrary<Duration> durations() {
        return Arbitraries.oneOf(
                Arbitraries.longs().map(Duration::ofNanos),
                Arbitraries.longs().between(-1_000_000_000_000L, 1_000_000_000_000L).map(Duration::ofSeconds),
                Arbitraries.of(Duration.ZERO, Duration.ofNanos(1), Duration.ofNanos(-1),
                        Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Duration.ofSeconds(Long.MIN_VALUE)));
    }

    @Provide
    Arbitrary<Duration> positiveDurations() {
        return durations().filter(duration -> !duration.isNegative() && !duration.isZero());
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.strings().withChars(" \t\n\u2003").ofMaxLength(4),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12));
    }
}
