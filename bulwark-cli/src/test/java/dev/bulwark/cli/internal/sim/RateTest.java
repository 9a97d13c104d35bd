package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RateTest {

    @ParameterizedTest
    @CsvSource({"2000/s, 2000", "2000, 2000", "120000/m, 2000", "5/ms, 5000", "7200/h, 2", "0.5/s, 0.5",
        "2000 / s, 2000"})
    void parsesRatesPerUnit(String text, double perSecond) {
        assertThat(Rate.parse(text).perSecond()).isEqualTo(perSecond);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0/s", "-1/s", "fast", "2000/d", "/s", "1e3/s"})
    void rejectsAnythingElseNamingTheForm(String text) {
        assertThatThrownBy(() -> Rate.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2000/s").hasMessageContaining("'" + text + "'");
    }

    @Test
    void writesItselfPerSecond() {
        assertThat(Rate.parse("2000/s")).hasToString("2000/s");
        assertThat(Rate.parse("1/m")).hasToString("0.01667/s");
        assertThat(Rate.parse("4/ms").meanIntervalNanos()).isEqualTo(250_000.0);
    }
}
