package dev.bulwark.benchmarks.subjects;

import java.util.List;
import java.util.Objects;

/**
 * Makes a {@link Subject} by the name the benchmarks use as their {@code subject} parameter.
 *
 * <table>
 *   <caption>Subjects</caption>
 *   <tr><th>name</th><th>what it is</th></tr>
 *   <tr><td>{@value #SEMAPHORE}</td><td>a bare non-fair {@link java.util.concurrent.Semaphore}: the floor</td></tr>
 *   <tr><td>{@value #SEMAPHORE_FAIR}</td><td>a bare fair semaphore: the floor of the FIFO hand-off</td></tr>
 *   <tr><td>{@value #BULWARK}</td><td>Bulwark's in-process bulkhead</td></tr>
 *   <tr><td>{@value #BULWARK_LISTENER}</td><td>the same with a listener that does nothing with every event</td></tr>
 *   <tr><td>{@value #BULWARK_OUTCOME_LISTENER}</td><td>the same with a listener of outcomes only (admitted,
 *       rejected, cancelled; no execution times), as a log of refusals is</td></tr>
 *   <tr><td>{@value #RESILIENCE4J}</td><td>Resilience4j's semaphore bulkhead, stack traces on (its default)</td></tr>
 *   <tr><td>{@value #RESILIENCE4J_NOSTACK}</td><td>the same with {@code writableStackTraceEnabled(false)}</td></tr>
 *   <tr><td>{@value #FAILSAFE}</td><td>Failsafe's bulkhead through {@code Failsafe.with(bulkhead)}</td></tr>
 *   <tr><td>{@value #FAILSAFE_PERMIT}</td><td>Failsafe's bulkhead used standalone (try/release permit)</td></tr>
 *   <tr><td>{@value #BULWARK_RETRY}</td><td>Bulwark's bulkhead in a pipeline under a retry of rejections</td></tr>
 *   <tr><td>{@value #BULWARK_RETRY_TIMEOUT}</td><td>the same with a timeout between retry and bulkhead</td></tr>
 *   <tr><td>{@value #BULWARK_INDEPENDENT}</td><td>per-key scenario: one independent bulkhead per key</td></tr>
 *   <tr><td>{@value #BULWARK_PARTITIONED}</td><td>per-key scenario: a {@code PartitionedBulkhead}</td></tr>
 *   <tr><td>{@value #BULWARK_PARTITIONED_GLOBAL}</td><td>per-key scenario: the same under a global limit that is
 *     never saturated, global FIFO</td></tr>
 *   <tr><td>{@value #BULWARK_PARTITIONED_FAIR}</td><td>per-key scenario: the same with fair shares</td></tr>
 * </table>
 */
public final class Subjects {

    /** A bare non-fair semaphore. */
    public static final String SEMAPHORE = "semaphore";
    /** A bare fair semaphore. */
    public static final String SEMAPHORE_FAIR = "semaphore-fair";
    /** Bulwark. */
    public static final String BULWARK = "bulwark";
    /** Bulwark with a no-op listener. */
    public static final String BULWARK_LISTENER = "bulwark-listener";
    /** Bulwark with a listener of outcomes only, which needs no clock reading. */
    public static final String BULWARK_OUTCOME_LISTENER = "bulwark-outcome-listener";
    /** Resilience4j, stack traces on. */
    public static final String RESILIENCE4J = "resilience4j";
    /** Resilience4j, stack traces off. */
    public static final String RESILIENCE4J_NOSTACK = "resilience4j-nostack";
    /** Failsafe through its executor. */
    public static final String FAILSAFE = "failsafe";
    /** Failsafe standalone. */
    public static final String FAILSAFE_PERMIT = "failsafe-permit";

    /** Bulwark under a retry, in a pipeline. */
    public static final String BULWARK_RETRY = "bulwark-retry";
    /** Bulwark under a retry and a timeout, in a pipeline. */
    public static final String BULWARK_RETRY_TIMEOUT = "bulwark-retry-timeout";
    /** Per-key scenario: an independent bulkhead per key. */
    public static final String BULWARK_INDEPENDENT = "bulwark-independent";
    /** Per-key scenario: a partitioned bulkhead. */
    public static final String BULWARK_PARTITIONED = "bulwark-partitioned";
    /** Per-key scenario: a partitioned bulkhead under an unsaturated global limit, global FIFO. */
    public static final String BULWARK_PARTITIONED_GLOBAL = "bulwark-partitioned-global";
    /** Per-key scenario: a partitioned bulkhead under an unsaturated global limit, fair shares. */
    public static final String BULWARK_PARTITIONED_FAIR = "bulwark-partitioned-fair";

    /** Every subject name, in the order tables list them. */
    public static final List<String> NAMES = List.of(SEMAPHORE, SEMAPHORE_FAIR, BULWARK, BULWARK_LISTENER,
            BULWARK_OUTCOME_LISTENER,
            RESILIENCE4J, RESILIENCE4J_NOSTACK, FAILSAFE, FAILSAFE_PERMIT, BULWARK_RETRY, BULWARK_RETRY_TIMEOUT,
            BULWARK_INDEPENDENT, BULWARK_PARTITIONED, BULWARK_PARTITIONED_GLOBAL, BULWARK_PARTITIONED_FAIR);

    private Subjects() {
    }

    /**
     * Makes a new subject with its own bulkhead.
     *
     * @param name one of {@link #NAMES}
     * @param spec how to configure the bulkhead
     * @return the subject
     * @throws IllegalArgumentException when {@code name} is not a known subject
     * @throws NullPointerException when an argument is {@code null}
     */
    public static Subject create(String name, SubjectSpec spec) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(spec, "spec");
        switch (name) {
            case SEMAPHORE:
                return new SemaphoreSubject(name, spec, false);
            case SEMAPHORE_FAIR:
                return new SemaphoreSubject(name, spec, true);
            case BULWARK:
                return BulwarkSubject.direct(name, spec, BulwarkSubject.Listening.NONE);
            case BULWARK_LISTENER:
                return BulwarkSubject.direct(name, spec, BulwarkSubject.Listening.EVERY_EVENT);
            case BULWARK_OUTCOME_LISTENER:
                return BulwarkSubject.direct(name, spec, BulwarkSubject.Listening.OUTCOMES);
            case RESILIENCE4J:
                return new Resilience4jSubject(name, spec, true);
            case RESILIENCE4J_NOSTACK:
                return new Resilience4jSubject(name, spec, false);
            case FAILSAFE:
                return new FailsafeSubject(name, spec);
            case FAILSAFE_PERMIT:
                return new FailsafePermitSubject(name, spec);
            case BULWARK_RETRY:
                return BulwarkSubject.inPipeline(name, spec, false);
            case BULWARK_RETRY_TIMEOUT:
                return BulwarkSubject.inPipeline(name, spec, true);
            case BULWARK_INDEPENDENT:
            case BULWARK_PARTITIONED:
            case BULWARK_PARTITIONED_GLOBAL:
            case BULWARK_PARTITIONED_FAIR:
                return new KeyedSubject(name, spec);
            default:
                throw new IllegalArgumentException("subject must be one of " + NAMES + " but was '" + name + "'");
        }
    }
}
