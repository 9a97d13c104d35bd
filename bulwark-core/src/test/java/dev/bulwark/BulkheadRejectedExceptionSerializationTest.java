package dev.bulwark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A refusal that crosses a process boundary (RMI, a job framework, a log appender that serializes) keeps its facts
 * and its message: found by audit, a deserialized copy returned {@code null} facts and threw from
 * {@code getMessage()} and {@code toString()}.
 */
class BulkheadRejectedExceptionSerializationTest {

    @Test
    void aRefusalThrownByABulkheadKeepsItsFactsAndMessageThroughSerialization() throws Exception {
        Bulkhead bulkhead = Bulkhead.builder().name("db").maxConcurrency(1).build();
        BulkheadRejectedException thrown;
        try (Permit held = bulkhead.acquire()) {
            thrown = refusal(bulkhead);
        }
        BulkheadRejectedException copy = roundTrip(thrown);

        assertThat(copy.rejection()).isEqualTo(thrown.rejection());
        assertThat(copy.rejection().executingCount()).isEqualTo(1);
        assertThat(copy.getMessage()).isEqualTo(thrown.getMessage()).contains("'db'", "QUEUE_FULL", "executing 1 of 1");
        assertThat(copy.toString()).contains("QUEUE_FULL");
    }

    @Test
    void aRefusalMadeWithThePublicConstructorKeepsItsFactsAndCause() throws Exception {
        Rejection facts = new Rejection("cluster", Rejection.Reason.UNAVAILABLE, 4, 2, 3, 1, Duration.ofMillis(7),
                Priority.HIGH);
        BulkheadRejectedException copy = roundTrip(new BulkheadRejectedException(facts, new IOException("down")));

        assertThat(copy.rejection()).isEqualTo(facts);
        assertThat(copy.getCause()).isInstanceOf(IOException.class).hasMessage("down");
        assertThat(copy.getMessage()).contains("UNAVAILABLE", "waited 7 ms");
    }

    private static BulkheadRejectedException refusal(Bulkhead bulkhead) {
        try {
            bulkhead.call(() -> "never");
            throw new AssertionError("the call should have been refused");
        } catch (BulkheadRejectedException refused) {
            return refused;
        }
    }

    private static BulkheadRejectedException roundTrip(BulkheadRejectedException exception) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(exception);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (BulkheadRejectedException) in.readObject();
        }
    }
}
