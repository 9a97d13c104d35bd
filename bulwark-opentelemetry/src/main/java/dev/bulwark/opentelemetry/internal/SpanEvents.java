package dev.bulwark.opentelemetry.internal;

import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_ADMISSION_EVENT;
import static dev.bulwark.opentelemetry.InstrumentNames.BULKHEAD_TIME_IN_QUEUE_SECONDS;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;

/**
 * Adds the {@value dev.bulwark.opentelemetry.InstrumentNames#BULKHEAD_ADMISSION_EVENT} event of a call that waited or
 * was refused to its caller's span: the one captured when a queued call started to wait, or the span current on the
 * reporting thread for a call that did not queue (that thread is then the caller's). Called only for a wait or a
 * refusal, and only when span events are on; allocates the event's attributes only when that span is recording.
 * Stateless, thread-safe.
 */
final class SpanEvents {

    private SpanEvents() {
    }

    /**
     * Returns the current span if it records, else {@code null}: what a queued call's event should go to.
     *
     * @return the span, or {@code null}
     */
    static Span recordingSpan() {
        Span span = Span.current();
        return span.isRecording() ? span : null;
    }

    /**
     * Adds the event to the caller's span, if it records.
     *
     * @param outcome the bulkhead's name, the outcome and, for a refusal, its reason (the call counter's attributes)
     * @param waitedNanos how long the call waited, in nanoseconds
     * @param callerSpan the span captured when the call started to wait ({@link #recordingSpan()}), or {@code null}
     *     for the span current on this thread
     */
    static void add(Attributes outcome, long waitedNanos, Object callerSpan) {
        Span span = callerSpan instanceof Span ? (Span) callerSpan : Span.current();
        if (!span.isRecording()) {
            return;
        }
        span.addEvent(BULKHEAD_ADMISSION_EVENT, outcome.toBuilder()
                .put(BULKHEAD_TIME_IN_QUEUE_SECONDS, Instruments.seconds(waitedNanos)).build());
    }
}
