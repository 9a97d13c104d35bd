package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bulwark.Priority;
import org.junit.jupiter.api.Test;

/** Issue 18 item 1: how a shedding route reads a request's priority from a header value. */
class RoutePriorityTest {

    private final RoutePriority route = new RoutePriority("X-Priority", Priority.LOW, true);

    @Test
    void everyPriorityNameIsReadCaseInsensitivelyWithSurroundingBlanksIgnored() {
        for (Priority priority : Priority.values()) {
            assertThat(route.of(priority.name())).isEqualTo(priority);
            assertThat(route.of(priority.name().toLowerCase(java.util.Locale.ROOT))).isEqualTo(priority);
            assertThat(route.of(" \t" + priority.name().charAt(0) + priority.name().substring(1).toLowerCase(
                    java.util.Locale.ROOT) + " ")).isEqualTo(priority);
        }
    }

    @Test
    void aMissingBlankOrUnknownValueMeansTheDefault() {
        assertThat(route.of(null)).isEqualTo(Priority.LOW);
        assertThat(route.of("")).isEqualTo(Priority.LOW);
        assertThat(route.of("urgent")).isEqualTo(Priority.LOW);
        assertThat(route.of("0")).isEqualTo(Priority.LOW);
        assertThat(route.of("CRITICAL,HIGH")).isEqualTo(Priority.LOW);
        assertThat(RoutePriority.NONE.of(null)).isEqualTo(Priority.NORMAL);
    }

    @Test
    void parseNamesAConfiguredPriorityOrNothing() {
        assertThat(RoutePriority.parse("sheddable")).isEqualTo(Priority.SHEDDABLE);
        assertThat(RoutePriority.parse(" High ")).isEqualTo(Priority.HIGH);
        assertThat(RoutePriority.parse("urgent")).isNull();
        assertThatThrownBy(() -> new RoutePriority(null, null, false)).isInstanceOf(NullPointerException.class)
                .hasMessage("defaultPriority");
    }
}
