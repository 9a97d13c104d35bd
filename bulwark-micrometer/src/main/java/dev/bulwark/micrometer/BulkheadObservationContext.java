package dev.bulwark.micrometer;

import dev.bulwark.Rejection;
import io.micrometer.observation.Observation;
import java.time.Duration;
import java.util.Objects;

/**
 * The context of a {@value #NAME} observation: one call that waited in a bound bulkhead's queue or was refused by it,
 * made by {@link BulwarkMetrics} when built with {@link BulwarkMetrics.Builder#observationRegistry}. Handlers (a
 * tracing handler, say) may read the typed facts here; the same facts are on the observation as key values:
 *
 * <ul>
 *   <li>low cardinality: {@value #KEY_NAME} (the bulkhead's name), {@value #KEY_OUTCOME} (as on
 *       {@value MeterNames#BULKHEAD_CALLS}: {@code admitted}, {@code cancelled} or {@code rejected.<reason>}) and
 *       {@value #KEY_REASON} (the {@link Rejection.Reason} in lower case, {@code none} for an admitted or cancelled
 *       call);</li>
 *   <li>high cardinality: {@value #KEY_WAIT} (how long the call waited in the queue, in seconds, as a decimal
 *       string: {@code 0.0} for a refusal that did not wait).</li>
 * </ul>
 *
 * <p>An instance is made per observation and not changed after (but for what {@link Observation.Context} itself
 * lets handlers put into it). Not thread-safe beyond what {@code Observation.Context} guarantees.
 */
public final class BulkheadObservationContext extends Observation.Context {

    /** The name of the observation. */
    public static final String NAME = "bulwark.bulkhead.admission";
    /** Low-cardinality key: the bulkhead's name. */
    public static final String KEY_NAME = MeterNames.TAG_NAME;
    /** Low-cardinality key: how the call ended at the bulkhead, as on {@value MeterNames#BULKHEAD_CALLS}. */
    public static final String KEY_OUTCOME = MeterNames.TAG_OUTCOME;
    /** Low-cardinality key: the refusal's reason in lower case, or {@code none}. */
    public static final String KEY_REASON = "reason";
    /** High-cardinality key: how long the call waited, in seconds. */
    public static final String KEY_WAIT = "wait.seconds";

    private final String bulkheadName;
    private final String outcome;
    private final Rejection rejection;
    private final long waitedNanos;

    /**
     * Creates the context of one call.
     *
     * @param bulkheadName the bulkhead's name
     * @param outcome how the call ended, as on {@value MeterNames#BULKHEAD_CALLS}
     * @param rejection the refusal, or {@code null} for an admitted or cancelled call
     * @param waitedNanos how long the call waited in the queue, in nanoseconds, not negative
     * @throws NullPointerException when {@code bulkheadName} or {@code outcome} is {@code null}
     * @throws IllegalArgumentException when {@code waitedNanos} is negative
     */
    public BulkheadObservationContext(String bulkheadName, String outcome, Rejection rejection, long waitedNanos) {
        this.bulkheadName = Objects.requireNonNull(bulkheadName, "bulkheadName");
        this.outcome = Objects.requireNonNull(outcome, "outcome");
        if (waitedNanos < 0) {
            throw new IllegalArgumentException("waitedNanos must not be negative but was " + waitedNanos);
        }
        this.rejection = rejection;
        this.waitedNanos = waitedNanos;
    }

    /**
     * Returns the bulkhead's name.
     *
     * @return the name
     */
    public String bulkheadName() {
        return bulkheadName;
    }

    /**
     * Returns how the call ended at the bulkhead: {@code admitted}, {@code cancelled} or {@code rejected.<reason>}.
     *
     * @return the outcome
     */
    public String outcome() {
        return outcome;
    }

    /**
     * Returns the refusal, for a refused call.
     *
     * @return the refusal, or {@code null} for an admitted or cancelled call
     */
    public Rejection rejection() {
        return rejection;
    }

    /**
     * Returns how long the call waited in the queue.
     *
     * @return the wait; zero for a refusal that did not wait
     */
    public Duration waited() {
        return Duration.ofNanos(waitedNanos);
    }
}
