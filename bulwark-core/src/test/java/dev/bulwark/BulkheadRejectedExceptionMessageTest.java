package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The wait in a refusal's message: found by audit, a wait under one millisecond read "waited 0 ms", as if the call
 * had not waited. Whole milliseconds from 1 ms on, three decimals below, never zero for a wait that happened.
 */
class BulkheadRejectedExceptionMessageTest {

    private static String message(Duration waited) {
        return new BulkheadRejectedException(new Rejection("db", Rejection.Reason.WAIT_TIMEOUT, 2, 3, 2, 1, waited))
                .getMessage();
    }

    @Test
    void aWaitUnderOneMillisecondIsWrittenWithThreeDecimals() {
        assertThat(message(Duration.ofNanos(437_000))).contains("waited 0.437 ms").doesNotContain("waited 0 ms");
        assertThat(message(Duration.ofNanos(999_999))).contains("waited 0.999 ms");
    }

    @Test
    void aWaitOfOneNanosecondIsNotWrittenAsZero() {
        assertThat(message(Duration.ofNanos(1))).contains("waited 0.001 ms");
    }

    @Test
    void aWaitOfOneMillisecondOrMoreIsWrittenInWholeMilliseconds() {
        assertThat(message(Duration.ofMillis(5))).endsWith("(executing 2 of 2, queued 1 of 3, waited 5 ms)");
        assertThat(message(Duration.ofNanos(5_900_000))).contains("waited 5 ms");
        assertThat(message(Duration.ofMillis(1))).contains("waited 1 ms");
        assertThat(message(Duration.ofSeconds(3, 250_000))).contains("waited 3000 ms");
    }

    @Test
    void theDecimalPointDoesNotDependOnTheLocale() {
        Locale before = Locale.getDefault();
        try {
            Locale.setDefault(Locale.GERMANY);
            assertThat(message(Duration.ofNanos(437_000))).contains("waited 0.437 ms");
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void noWaitIsNotMentioned() {
        assertThat(message(Duration.ZERO)).doesNotContain("waited");
    }
}
