package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.MeterNames.RETRY_CALLS;
import static dev.bulwark.micrometer.MeterNames.RETRY_RETRIES;
import static dev.bulwark.micrometer.MeterNames.TAG_OUTCOME;

import dev.bulwark.RetryEvent;
import dev.bulwark.RetryListener;
import dev.bulwark.internal.binding.AttachedListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.CancellationException;

/** Records one retry policy's events in its counters. Thread-safe: meters are. */
final class RetryMeters extends AttachedListener implements RetryListener {

    private final Counter succeededWithoutRetry;
    private final Counter succeededAfterRetry;
    private final Counter retriesExhausted;
    private final Counter notRetryable;
    private final Counter cancelled;
    private final Counter retries;

    private RetryMeters(MeterGroup group, Tags tags) {
        MeterRegistry registry = group.registry();
        succeededWithoutRetry = group.add(calls(tags, "succeeded.without_retry").register(registry));
        succeededAfterRetry = group.add(calls(tags, "succeeded.after_retry").register(registry));
        retriesExhausted = group.add(calls(tags, "failed.retries_exhausted").register(registry));
        notRetryable = group.add(calls(tags, "failed.not_retryable").register(registry));
        cancelled = group.add(calls(tags, "cancelled").register(registry));
        retries = group.add(Counter.builder(RETRY_RETRIES).tags(tags)
                .description("Retries scheduled after a failed attempt").register(registry));
    }

    /** Registers the meters of a retry in {@code group} and returns the listener that feeds them. */
    static RetryMeters register(MeterGroup group, Tags tags) {
        return new RetryMeters(group, tags);
    }

    private static Counter.Builder calls(Tags tags, String outcome) {
        return Counter.builder(RETRY_CALLS).tags(tags).tag(TAG_OUTCOME, outcome)
                .description("Calls through the retry, by how they ended");
    }

    @Override
    public void retryScheduled(RetryEvent event) {
        retries.increment();
    }

    @Override
    public void succeeded(int attempts) {
        (attempts <= 1 ? succeededWithoutRetry : succeededAfterRetry).increment();
    }

    @Override
    public void failed(int attempts, Throwable failure, boolean exhausted) {
        if (exhausted) {
            retriesExhausted.increment();
        } else if (failure instanceof CancellationException) {
            cancelled.increment();
        } else {
            notRetryable.increment();
        }
    }

    @Override
    public String toString() {
        return "BulwarkMetrics retry listener";
    }
}
