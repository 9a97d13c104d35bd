package dev.bulwark.cli.internal.migrate;

import java.util.Optional;
import java.util.Set;

/** The Resilience4j sections the migration carries over, each with the properties its instances may have. */
enum Kind {

    /** {@code resilience4j.bulkhead}: the semaphore bulkhead. */
    BULKHEAD("bulkhead", Set.of("maxconcurrentcalls", "maxwaitduration", "writablestacktraceenabled",
            "eventconsumerbuffersize", "baseconfig")),

    /** {@code resilience4j.thread-pool-bulkhead}. */
    THREAD_POOL_BULKHEAD("thread-pool-bulkhead", Set.of("maxthreadpoolsize", "corethreadpoolsize", "queuecapacity",
            "keepaliveduration", "writablestacktraceenabled", "contextpropagators", "eventconsumerbuffersize",
            "baseconfig")),

    /** {@code resilience4j.retry}. */
    RETRY("retry", Set.of("maxattempts", "waitduration", "enableexponentialbackoff", "exponentialbackoffmultiplier",
            "exponentialmaxwaitduration", "enablerandomizedwait", "randomizedwaitfactor", "retryexceptions",
            "ignoreexceptions", "retryexceptionpredicate", "resultpredicate", "intervalbifunction",
            "consumeresultbeforeretryattempt", "failaftermaxattempts", "eventconsumerbuffersize", "baseconfig")),

    /** {@code resilience4j.timelimiter}. */
    TIME_LIMITER("timelimiter", Set.of("timeoutduration", "cancelrunningfuture", "eventconsumerbuffersize",
            "baseconfig"));

    /** The list-valued properties: several items, or one comma-separated value, as Spring binds an array. */
    static final Set<String> LIST_PROPERTIES = Set.of("retryexceptions", "ignoreexceptions", "contextpropagators");

    final String section;
    final Set<String> properties;

    Kind(String section, Set<String> properties) {
        this.section = section;
        this.properties = properties;
    }

    /**
     * The kind of a section name in any of Spring's relaxed forms ({@code thread-pool-bulkhead},
     * {@code threadPoolBulkhead}).
     */
    static Optional<Kind> of(String sectionName) {
        String canonical = canonical(sectionName);
        for (Kind kind : values()) {
            if (canonical(kind.section).equals(canonical)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    /** Spring's canonical form of a property name: lower case, without dashes and underscores. */
    static String canonical(String name) {
        return name.replace("-", "").replace("_", "").toLowerCase(java.util.Locale.ROOT);
    }
}
