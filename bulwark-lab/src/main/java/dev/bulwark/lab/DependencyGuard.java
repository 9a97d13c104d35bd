package dev.bulwark.lab;

import dev.bulwark.AdaptiveLimit;
import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadRejectedException;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.resilience.InvocationRejectedException;
import org.springframework.stereotype.Component;

/**
 * What stands in front of the service's dependencies ({@link DependencyWork}: the database, the second HTTP service)
 * for the current run, switched by the lab between runs with {@link #use(GuardMode, int, Duration)}: nothing, a
 * Bulwark bulkhead (fixed or {@code selfTuning()}), Resilience4j's semaphore bulkhead, or Spring Framework 7's
 * {@code @ConcurrencyLimit} ({@link SpringLimitedWork}). An experiment loads one dependency at a time.
 *
 * <p>Thread-safe: a request reads the current guard once; switching between runs publishes a new one.
 */
@Component
class DependencyGuard {

    /** Runs a dependency's work, or refuses it with {@link Refused}. */
    @FunctionalInterface
    private interface Guard {
        long call(DependencyWork work) throws Exception;
    }

    /** The guard refused the call: the service answers 503 at once. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(Throwable cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private volatile Guard guard = DependencyWork::serve;
    private volatile Bulkhead bulwark;
    private final ObjectProvider<SpringLimitedWork> springWork;
    private final Map<String, Object> springProperties = new ConcurrentHashMap<>();

    DependencyGuard(ObjectProvider<SpringLimitedWork> springWork, ConfigurableEnvironment environment) {
        this.springWork = springWork;
        // Highest precedence: the limit of the next @ConcurrencyLimit proxy, set by use() before it is created.
        environment.getPropertySources().addFirst(new MapPropertySource("lab-guard", springProperties));
    }

    /**
     * Returns the queue the lab gives a Bulwark bulkhead with {@code limit}, on the database path and at the edge:
     * four waiting calls per slot and 20 more, so that a queued call, not a full queue, meets the maximum wait.
     *
     * @param limit the bulkhead's limit
     * @return {@code 4 x limit + 20}
     */
    static int queueFor(int limit) {
        return 4 * limit + 20;
    }

    /**
     * Switches the guard for the following requests.
     *
     * @param mode which guard
     * @param limit the fixed limit ({@link GuardMode#FIXED}, {@link GuardMode#RESILIENCE4J} and the two Spring
     *     modes) or the starting and highest limit ({@link GuardMode#SELF_TUNING}); unused for
     *     {@link GuardMode#NONE}
     * @param maxWait the longest a call waits for a slot before it is refused (Spring's annotation has none: it
     *     waits without bound under {@code BLOCK} and not at all under {@code REJECT})
     */
    void use(GuardMode mode, int limit, Duration maxWait) {
        Objects.requireNonNull(mode, "mode");
        switch (mode) {
            case NONE -> {
                bulwark = null;
                guard = DependencyWork::serve;
            }
            case FIXED, SELF_TUNING -> {
                Bulkhead.Builder builder = Bulkhead.builder().name("lab-db").maxConcurrency(limit)
                        .maxQueue(queueFor(limit)).maxWait(maxWait);
                if (mode == GuardMode.SELF_TUNING) {
                    builder.adaptive(AdaptiveLimit.selfTuning().maxLimit(limit).build());
                }
                Bulkhead bulkhead = builder.build();
                bulwark = bulkhead;
                guard = work -> {
                    try {
                        return bulkhead.call(work::serve);
                    } catch (BulkheadRejectedException e) {
                        throw new Refused(e);
                    }
                };
            }
            case RESILIENCE4J -> {
                io.github.resilience4j.bulkhead.Bulkhead bulkhead = io.github.resilience4j.bulkhead.Bulkhead.of(
                        "lab-db", BulkheadConfig.custom().maxConcurrentCalls(limit).maxWaitDuration(maxWait).build());
                bulwark = null;
                guard = work -> {
                    if (!bulkhead.tryAcquirePermission()) {
                        throw new Refused(BulkheadFullException.createBulkheadFullException(bulkhead));
                    }
                    try {
                        return work.serve();
                    } finally {
                        bulkhead.onComplete();
                    }
                };
            }
            case SPRING_BLOCK, SPRING_REJECT -> {
                // Spring resolves the annotation's limit at a proxy's first call: a new proxy sees this run's limit.
                springProperties.put(SpringLimitedWork.LIMIT_PROPERTY, Integer.toString(limit));
                SpringLimitedWork limited = springWork.getObject();
                bulwark = null;
                if (mode == GuardMode.SPRING_BLOCK) {
                    guard = limited::serveBlocking;
                } else {
                    guard = work -> {
                        try {
                            return limited.serveRejecting(work);
                        } catch (InvocationRejectedException e) {
                            throw new Refused(e);
                        }
                    };
                }
            }
            default -> throw new IllegalArgumentException("mode: " + mode);
        }
    }

    /**
     * Runs the work through the current guard.
     *
     * @param work a dependency's work
     * @return the work's result
     * @throws Exception the work's own, untouched (HikariCP's pool timeout among them)
     * @throws Refused when the guard refused the call
     */
    long call(DependencyWork work) throws Exception {
        return guard.call(work);
    }

    /**
     * Returns the current limit of the Bulwark bulkhead in use, or -1 when the guard is not one.
     *
     * @return the limit now
     */
    int bulwarkLimit() {
        Bulkhead b = bulwark;
        return b == null ? -1 : b.maxConcurrency();
    }
}
