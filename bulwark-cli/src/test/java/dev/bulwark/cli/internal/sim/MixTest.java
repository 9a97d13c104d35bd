package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.Priority;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Mix}: the draw follows the cumulative shares, and a mix that is not a distribution is refused. */
class MixTest {

    private static final Mix<Integer> WEIGHTS = new Mix<>(List.of(new Mix.Entry<>(1, 70), new Mix.Entry<>(2, 20),
            new Mix.Entry<>(4, 10)), "1:70%,2:20%,4:10%");

    @Test
    void aUniformNumberFallsOnTheValueWhoseCumulativeShareCoversIt() {
        assertThat(WEIGHTS.draw(0.0)).isEqualTo(1);
        assertThat(WEIGHTS.draw(0.6999)).isEqualTo(1);
        assertThat(WEIGHTS.draw(0.70)).isEqualTo(2);
        assertThat(WEIGHTS.draw(0.8999)).isEqualTo(2);
        assertThat(WEIGHTS.draw(0.90)).isEqualTo(4);
        assertThat(WEIGHTS.draw(Math.nextDown(1.0))).isEqualTo(4);
    }

    @Test
    void sharesThatDoNotAddUpToAHundredOrARepeatedValueAreRefused() {
        assertThatThrownBy(() -> new Mix<>(List.of(new Mix.Entry<>(1, 70), new Mix.Entry<>(2, 20)), "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("add up to 90%");
        assertThatThrownBy(() -> new Mix<>(List.of(new Mix.Entry<>(1, 50), new Mix.Entry<>(1, 50)), "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 is given twice");
        assertThatThrownBy(() -> new Mix<Integer>(List.of(), "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Mix.Entry<>(1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("share of 1");
    }

    @Test
    void aCallMixDescribesItselfAndKnowsItsHeaviestWeight() {
        CallMix mix = new CallMix(new Mix<>(List.of(new Mix.Entry<>(Priority.CRITICAL, 100)), "critical:100%"),
                WEIGHTS, Map.of(Priority.HIGH, 1, Priority.CRITICAL, 2));

        assertThat(mix.maxWeight()).isEqualTo(4);
        // Reserves are listed highest priority first, whatever order they were given in.
        assertThat(mix.describe()).isEqualTo("priorities critical:100%; weights 1:70%,2:20%,4:10%; "
                + "reserve critical:2,high:1");
        assertThatThrownBy(() -> new CallMix(null, null, Map.of(Priority.LOW, -1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserve of LOW");
    }
}
