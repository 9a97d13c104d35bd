package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_CALLS;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_NAME;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_OUTCOME;
import static dev.bulwark.opentelemetry.InstrumentNames.RETRY_RETRIES;

import dev.bulwark.RetryEvent;
import dev.bulwark.RetryListener;
import dev.bulwark.internal.binding.AttachedListener;
import io.opentelemetry.api.common.Attributes;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.LongAdder;

/** Counts one retry policy's events in adders read at collection; allocates nothing per call. Thread-safe. */
final class RetryInstruments extends AttachedListener implements RetryListener {

    private static final String[] OUTCOMES = {"succeeded_without_retry", "succeeded_after_retry",
        "failed_retries_exhausted", "failed_not_retryable", "cancelled"};
    private static final int WITHOUT_RETRY = 0;
    private static final int AFTER_RETRY = 1;
    private static final int EXHAUSTED = 2;
    private static final int NOT_RETRYABLE = 3;
    private static final int CANCELLED = 4;

    private final LongAdder[] calls = new LongAdder[OUTCOMES.length];
    private final LongAdder retries = new LongAdder();

    private RetryInstruments() {
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new LongAdder();
        }
    }

    static RetryInstruments register(Instruments instruments, String name, Observations observations) {
        RetryInstruments listener = new RetryInstruments();
        Attributes named = Attributes.of(RETRY_NAME, name);
        Attributes[] byOutcome = new Attributes[OUTCOMES.length];
        for (int i = 0; i < OUTCOMES.length; i++) {
            byOutcome[i] = named.toBuilder().put(RETRY_OUTCOME, OUTCOMES[i]).build();
        }
        // Callbacks capture the adders, never the listener (which refers, through its subscription, to the retry).
        LongAdder[] calls = listener.calls;
        LongAdder retries = listener.retries;
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
        return listener;
    }

    @Override
    public void retryScheduled(RetryEvent event) {
        retries.increment();
    }

    @Override
    public void succeeded(int attempts) {
        calls[attempts <= 1 ? WITHOUT_RETRY : AFTER_RETRY].increment();
    }

    @Override
    public void failed(int attempts, Throwable failure, boolean retriesExhausted) {
        if (retriesExhausted) {
            calls[EXHAUSTED].increment();
        } else if (failure instanceof CancellationException) {
            calls[CANCELLED].increment();
        } else {
            calls[NOT_RETRYABLE].increment();
        }
    }

    @Override
    public String toString() {
        return "BulwarkTelemetry retry listener";
    }
}
