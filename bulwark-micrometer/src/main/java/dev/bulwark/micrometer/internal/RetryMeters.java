package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.RETRY_CALLS;
import static dev.bulwark.micrometer.MeterNames.RETRY_RETRIES;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;

import dev.bulwark.internal.binding.RetryObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * One retry policy's counters, fed by core's {@link RetryObserver} (which decides how each call ended); this class
 * only registers them and names their outcomes. Thread-safe: meters are.
 */
final class RetryMeters {

    /** The outcome tag values, indexed by {@link RetryObserver.Outcome#ordinal()}. */
    private static final String[] OUTCOMES = {"succeeded.without_retry", "succeeded.after_retry",
        "failed.retries_exhausted", "failed.not_retryable", "cancelled"};

    private RetryMeters() {
    }

    /** Registers the meters of a retry in {@code group} and returns the listener that feeds them. */
    static RetryObserver register(MeterGroup group, Tags tags) {
        MeterRegistry registry = group.registry();
        Counter[] calls = new Counter[OUTCOMES.length];
        for (int i = 0; i < OUTCOMES.length; i++) {
            calls[i] = group.add(Counter.builder(RETRY_CALLS).tags(tags).tag(TAG_OUTCOME, OUTCOMES[i])
                    .description("Calls through the retry, by how they ended").register(registry));
        }
        Counter retries = group.add(Counter.builder(RETRY_RETRIES).tags(tags)
                .description("Retries scheduled after a failed attempt").register(registry));
        return new RetryObserver("BulwarkMetrics retry listener", outcome -> calls[outcome.ordinal()]::increment,
                retries::increment);
    }
}
