package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_RETRIES;

import dev.bulwark.internal.binding.RetryObserver;
import io.opentelemetry.api.common.Attributes;
import java.util.concurrent.atomic.LongAdder;

/**
 * One retry policy's instruments: adders, fed by core's {@link RetryObserver} (which decides how each call ended),
 * read at collection; this class only registers them and names their outcomes. Thread-safe; allocates nothing per
 * call.
 */
final class RetryInstruments {

    /** The outcome attribute values, indexed by {@link RetryObserver.Outcome#ordinal()}. */
    private static final String[] OUTCOMES = {"succeeded_without_retry", "succeeded_after_retry",
        "failed_retries_exhausted", "failed_not_retryable", "cancelled"};

    private RetryInstruments() {
    }

    /** Registers the instruments of the retry called {@code name} and returns the listener that feeds them. */
    static RetryObserver register(Instruments instruments, String name, Observations observations) {
        Attributes named = Attributes.of(RETRY_NAME, name);
        LongAdder[] calls = new LongAdder[OUTCOMES.length];
        Attributes[] byOutcome = new Attributes[OUTCOMES.length];
        for (int i = 0; i < OUTCOMES.length; i++) {
            calls[i] = new LongAdder();
            byOutcome[i] = named.toBuilder().put(RETRY_OUTCOME, OUTCOMES[i]).build();
        }
        LongAdder retries = new LongAdder();
        // Callbacks capture the adders, never the listener (which refers, through its subscription, to the retry).
        observations.add(instruments.meter().counterBuilder(RETRY_CALLS).setUnit("{call}")
                .setDescription("Calls through the retry, by how they ended")
                .buildWithCallback(measurement -> {
                    for (int i = 0; i < byOutcome.length; i++) {
                        measurement.record(calls[i].sum(), byOutcome[i]);
                    }
                }));
        observations.add(instruments.meter().counterBuilder(RETRY_RETRIES).setUnit("{retry}")
                .setDescription("Retries scheduled after a failed attempt")
                .buildWithCallback(measurement -> measurement.record(retries.sum(), named)));
        return new RetryObserver("BulwarkTelemetry retry listener", outcome -> calls[outcome.ordinal()]::increment,
                retries::increment);
    }
}
