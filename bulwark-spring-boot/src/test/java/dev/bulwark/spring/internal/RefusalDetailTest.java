package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The problem document's {@code detail} never says a request that waited for a slot waited 0 ms. */
class RefusalDetailTest {

    private static Rejection timedOutAfter(Duration waited) {
        return new Rejection("db", Rejection.Reason.WAIT_TIMEOUT, 4, 2, 4, 1, waited, Priority.NORMAL);
    }

    @Test
    void aWaitUnderOneMillisecondIsWrittenWithDecimals() {
        assertThat(Refusal.detail(timedOutAfter(Duration.ofNanos(437_000))))
                .isEqualTo("The request waited 0.437 ms for a slot in bulkhead 'db' without getting one.");
    }

    @Test
    void aWaitOfOneMillisecondOrMoreIsWrittenInWholeMilliseconds() {
        assertThat(Refusal.detail(timedOutAfter(Duration.ofMillis(250))))
                .isEqualTo("The request waited 250 ms for a slot in bulkhead 'db' without getting one.");
    }
}
