package dev.bulwark.micrometer.internal;

import static dev.bulwark.micrometer.BulkheadObservationContext.KEY_NAME;
import static dev.bulwark.micrometer.BulkheadObservationContext.KEY_OUTCOME;
import static dev.bulwark.micrometer.BulkheadObservationContext.KEY_REASON;
import static dev.bulwark.micrometer.BulkheadObservationContext.KEY_WAIT;

import dev.bulwark.Rejection;
import dev.bulwark.micrometer.BulkheadObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;

/**
 * Makes the {@value BulkheadObservationContext#NAME} observations of one bound bulkhead: one per call that waited or
 * was refused, started and stopped at once as a child of the observation current on the reporting thread. Only
 * called off the uncontended path ({@link BulkheadMeters} calls it for a wait or a refusal, never for a call that
 * found a free slot). Thread-safe.
 *
 * <p>Why only under a current observation: the observation is there to show the wait or the refusal in the caller's
 * trace. Without one there is no trace to show it in, and a root observation per refused call would make a trace of
 * its own per refusal, which is noise (and cost) under overload. The thread is the one the bulkhead reports on: the
 * caller's for a synchronous call and for any refusal of a call that did not queue, another one for an asynchronous
 * call's queued wait (see docs/observability.md).
 */
final class BulkheadObservations {

    private static final String NONE = "none";

    private final ObservationRegistry registry;
    private final String name;
    private final String contextualName;

    BulkheadObservations(ObservationRegistry registry, String name) {
        this.registry = registry;
        this.name = name;
        this.contextualName = "bulkhead " + name;
    }

    /** Observes a call that waited {@code waitedNanos} and ended {@code outcome} ({@code rejection} if refused). */
    void observe(String outcome, Rejection rejection, long waitedNanos) {
        if (registry.isNoop() || registry.getCurrentObservation() == null) {
            return;
        }
        BulkheadObservationContext context = new BulkheadObservationContext(name, outcome, rejection, waitedNanos);
        Observation.createNotStarted(BulkheadObservationContext.NAME, () -> context, registry)
                .contextualName(contextualName)
                .lowCardinalityKeyValue(KEY_NAME, name)
                .lowCardinalityKeyValue(KEY_OUTCOME, outcome)
                .lowCardinalityKeyValue(KEY_REASON, rejection == null ? NONE
                        : rejection.reason().name().toLowerCase(Locale.ROOT))
                .highCardinalityKeyValue(KEY_WAIT, Double.toString(waitedNanos / 1e9))
                .start()
                .stop();
    }
}
