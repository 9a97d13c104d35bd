package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_ADMISSION_EVENT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE_SECONDS;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * Adds the {@value dev.bulwark.opentelemetry.InstrumentNames#BULKHEAD_ADMISSION_EVENT} event of a call that waited or
 * was refused to the span current on the reporting thread. Called only for a wait or a refusal, and only when span
 * events are on; allocates the event's attributes only when that span is recording. Stateless, thread-safe.
 */
final class SpanEvents {

    private SpanEvents() {
    }

    /**
     * Adds the event to the current span, if it records.
     *
     * @param outcome the bulkhead's name, the outcome and, for a refusal, its reason (the call counter's attributes)
     * @param waitedNanos how long the call waited, in nanoseconds
     */
    static void add(Attributes outcome, long waitedNanos) {
        Span span = Span.current();
        if (!span.isRecording()) {
            return;
        }
        span.addEvent(BULKHEAD_ADMISSION_EVENT, outcome.toBuilder()
                .put(BULKHEAD_TIME_IN_QUEUE_SECONDS, Instruments.seconds(waitedNanos)).build());
    }
}
