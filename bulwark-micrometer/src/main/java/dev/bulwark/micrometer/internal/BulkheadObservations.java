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
import java.util.function.Supplier;

/**
 * Makes the {@value BulkheadObservationContext#NAME} observations of one bound bulkhead: one per call that waited or
 * was refused, started and stopped at once as a child of the observation current on the reporting thread. Only
 * called off the uncontended path ({@link BulkheadMeters} calls it for a wait or a refusal, never for a call that
 * found a free slot). Thread-safe.
 *
 * <p>Why only under a caller's observation: the observation is there to show the wait or the refusal in the caller's
 * trace. Without one there is no trace to show it in, and a root observation per refused call would make a trace of
 * its own per refusal, which is noise (and cost) under overload. The caller's observation is the one current on the
 * caller's thread: for a call that queued, captured when it started to wait ({@link #current()}) and passed back with
 * its outcome, whichever thread reports it; for a call that did not queue, the one current on the reporting thread,
 * which is the caller's.
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
        // Loaded with the binding, not on a server's thread by a caller's first observed refusal (issue 37).
        loaded(BulkheadObservationContext.class, ContextSupplier.class);
    }

    private static void loaded(Class<?>... classes) {
        // Naming the classes loads them; nothing else to do.
    }

    /** The observation current on this thread (a caller's, as its call starts to wait), or {@code null}. */
    Observation current() {
        return registry.isNoop() ? null : registry.getCurrentObservation();
    }

    /**
     * Observes a call that waited {@code waitedNanos} and ended {@code outcome} ({@code rejection} if refused).
     *
     * @param caller the caller's observation captured when the call started to wait ({@link #current()}), or
     *     {@code null} for the one current on this thread
     */
    void observe(String outcome, Rejection rejection, long waitedNanos, Object caller) {
        if (registry.isNoop()) {
            return;
        }
        Observation parent = caller instanceof Observation ? (Observation) caller : registry.getCurrentObservation();
        if (parent == null) {
            return;
        }
        BulkheadObservationContext context = new BulkheadObservationContext(name, outcome, rejection, waitedNanos);
        Observation.createNotStarted(BulkheadObservationContext.NAME, new ContextSupplier(context), registry)
                .parentObservation(parent)
                .contextualName(contextualName)
                .lowCardinalityKeyValue(KEY_NAME, name)
                .lowCardinalityKeyValue(KEY_OUTCOME, outcome)
                .lowCardinalityKeyValue(KEY_REASON, rejection == null ? NONE
                        : rejection.reason().name().toLowerCase(Locale.ROOT))
                .highCardinalityKeyValue(KEY_WAIT, Double.toString(waitedNanos / 1e9))
                .start()
                .stop();
    }

    /** Supplies an observation its context: a class, not a lambda, so that the binding can load it in advance. */
    private static final class ContextSupplier implements Supplier<BulkheadObservationContext> {
        private final BulkheadObservationContext context;

        ContextSupplier(BulkheadObservationContext context) {
            this.context = context;
        }

        @Override
        public BulkheadObservationContext get() {
            return context;
        }
    }
}
