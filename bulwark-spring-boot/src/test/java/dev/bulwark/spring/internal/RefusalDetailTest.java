package dev.bulwark.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The problem document's {@code detail} never says a request that waited for a slot waited 0 ms, and its strings
 * (which carry the client's key) are escaped for JSON and for a reader that sniffs HTML.
 */
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

    @Test
    void everyControlCharacterQuoteBackslashAndMarkupCharacterIsEscapedAndReadsBackExactly() throws Exception {
        StringBuilder value = new StringBuilder("key ");
        for (char c = 0; c < 0x20; c++) {
            value.append(c);
        }
        for (char c = 0x7f; c <= 0x9f; c++) {
            value.append(c);
        }
        value.append("\"\\<>&/\u2028\u2029 é 😀");

        String json = Refusal.member(new StringBuilder("{"), "v", value.toString()).append('}').toString();

        String escaped = json.substring("{\"v\":\"".length(), json.length() - "\"}".length());
        assertThat(escaped).doesNotContain("<", ">", "&", "\u2028", "\u2029");
        assertThat(escaped.chars()).as("nothing but printable characters left as they were")
                .allMatch(c -> c >= 0x20 && (c < 0x7f || c > 0x9f));
        assertThat(json).contains("\\u003c\\u003e\\u0026", "\\\"\\\\", "\\u0000", "\\u001f", "\\u007f",
                "\\u009f", "\\u2028\\u2029");
        assertThat(new ObjectMapper().readTree(json).get("v").asText()).isEqualTo(value.toString());
    }
}
