package dev.bulwark.cli.internal.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @ParameterizedTest
    @CsvSource({"20ms, 20000000", "1.5s, 1500000000", "250us, 250000", "250µs, 250000", "7ns, 7", "2m, 120000000000",
        "1h, 3600000000000", "0ms, 0", "0.5 ms, 500000", "10S, 10000000000"})
    void parsesNumbersWithUnits(String text, long nanos) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofNanos(nanos));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "20", "ms", "-5ms", "5 minutes", "1,5s", "abc", "5ms5"})
    void rejectsAnythingElseNamingTheForm(String text) {
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("20ms, 1.5s").hasMessageContaining("'" + text + "'");
    }

    @Test
    void formatsWhatItParses() {
        for (String text : new String[] {"20ms", "1.5s", "250us", "2m", "1h", "7ns", "100ms", "10s"}) {
            assertThat(Durations.format(Durations.parse(text))).isEqualTo(text);
        }
    }

    @Test
    void writesMillisecondsForPeople() {
        assertThat(Durations.humanMillis(3.271)).isEqualTo("3.27 ms");
        assertThat(Durations.humanMillis(84.14)).isEqualTo("84.1 ms");
        assertThat(Durations.humanMillis(412.4)).isEqualTo("412 ms");
        assertThat(Durations.humanMillis(3232)).isEqualTo("3.23 s");
        assertThat(Durations.humanMillis(12_400)).isEqualTo("12.4 s");
        assertThat(Durations.humanMillis(Double.NaN)).isEqualTo("-");
    }
}
