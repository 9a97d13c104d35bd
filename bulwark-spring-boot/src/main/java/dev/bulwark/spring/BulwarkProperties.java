package dev.bulwark.spring;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Bulwark's policies declared in the application's configuration, under {@code bulwark}:
 *
 * <pre>
 * bulwark:
 *   defaults:
 *     bulkhead: { max-concurrency: 10, max-queue: 0 }
 *     retry: { max-retries: 3, delay: 100ms }
 *     timeout: { duration: 2s }
 *   bulkheads:
 *     inventory-db: { max-concurrency: 20, max-queue: 50, max-wait: 200ms }
 *   retries:
 *     orders: { max-retries: 2, backoff-initial: 50ms, backoff-max: 1s, jitter: 0.2, retry-on: java.io.IOException }
 *   timeouts:
 *     pricing: { duration: 500ms, interrupt-on-timeout: true }
 * </pre>
 *
 * <p>A setting left out of a named policy comes from {@code bulwark.defaults}, and one left out there from the policy
 * builder's own default. A policy named by an annotation but not declared is made from the defaults. Values are
 * checked by the policy builders when the context starts: a bad one fails the startup with a message naming it.
 * Immutable (bound through its constructor).
 *
 * @param defaults settings every policy of a kind starts from
 * @param bulkheads bulkheads by name
 * @param retries retries by name
 * @param timeouts timeouts by name
 */
@ConfigurationProperties("bulwark")
public record BulwarkProperties(Defaults defaults, Map<String, BulkheadSettings> bulkheads,
                                Map<String, RetrySettings> retries, Map<String, TimeoutSettings> timeouts) {

    /** Replaces absent sections with empty ones. */
    public BulwarkProperties {
        defaults = defaults == null ? new Defaults(null, null, null) : defaults;
        bulkheads = bulkheads == null ? Map.of() : Map.copyOf(bulkheads);
        retries = retries == null ? Map.of() : Map.copyOf(retries);
        timeouts = timeouts == null ? Map.of() : Map.copyOf(timeouts);
    }

    /**
     * The settings every policy of a kind starts from.
     *
     * @param bulkhead defaults of every bulkhead
     * @param retry defaults of every retry
     * @param timeout defaults of every timeout
     */
    public record Defaults(BulkheadSettings bulkhead, RetrySettings retry, TimeoutSettings timeout) {

        /** Replaces absent sections with empty ones. */
        public Defaults {
            bulkhead = bulkhead == null ? new BulkheadSettings(null, null, null) : bulkhead;
            retry = retry == null ? new RetrySettings(null, null, null, null, null, null) : retry;
            timeout = timeout == null ? new TimeoutSettings(null, null) : timeout;
        }
    }

    /**
     * A bulkhead's settings; {@code null} means "inherit".
     *
     * @param maxConcurrency how many calls may run at once (default 10)
     * @param maxQueue how many calls may wait for a slot (default 0: refuse at once when none is free)
     * @param maxWait the longest a call waits for a slot (default: no bound)
     */
    public record BulkheadSettings(Integer maxConcurrency, Integer maxQueue, Duration maxWait) {

        BulkheadSettings over(BulkheadSettings defaults) {
            return new BulkheadSettings(maxConcurrency != null ? maxConcurrency : defaults.maxConcurrency,
                    maxQueue != null ? maxQueue : defaults.maxQueue, maxWait != null ? maxWait : defaults.maxWait);
        }
    }

    /**
     * A retry's settings; {@code null} means "inherit".
     *
     * @param maxRetries how many times a failed call is retried (default 3)
     * @param delay a fixed wait between attempts (default none; exclusive with the backoff)
     * @param backoffInitial the first wait of an exponential backoff
     * @param backoffMax the longest wait of an exponential backoff
     * @param jitter the fraction (0 to 1) by which each wait is randomized (default 0)
     * @param retryOn the failure types retried (default: every {@link Exception}); a class that is not a
     *                {@link Throwable} fails the startup
     */
    public record RetrySettings(Integer maxRetries, Duration delay, Duration backoffInitial, Duration backoffMax,
                                Double jitter, List<Class<? extends Throwable>> retryOn) {

        /** Copies the list of failure types. */
        public RetrySettings {
            retryOn = retryOn == null ? null : List.copyOf(retryOn);
        }

        RetrySettings over(RetrySettings defaults) {
            // Any wait key of its own replaces the defaults' wait as a whole, so a lone backoff-max is refused by the
            // "both or neither" check instead of being dropped.
            boolean ownWait = delay != null || backoffInitial != null || backoffMax != null;
            return new RetrySettings(maxRetries != null ? maxRetries : defaults.maxRetries,
                    ownWait ? delay : defaults.delay, ownWait ? backoffInitial : defaults.backoffInitial,
                    ownWait ? backoffMax : defaults.backoffMax, jitter != null ? jitter : defaults.jitter,
                    retryOn != null ? retryOn : defaults.retryOn);
        }
    }

    /**
     * A timeout's settings; {@code null} means "inherit".
     *
     * @param duration how long a call may take (required, here or in the defaults)
     * @param interruptOnTimeout whether a synchronous call's thread is interrupted at the deadline (default false)
     */
    public record TimeoutSettings(Duration duration, Boolean interruptOnTimeout) {

        TimeoutSettings over(TimeoutSettings defaults) {
            return new TimeoutSettings(duration != null ? duration : defaults.duration,
                    interruptOnTimeout != null ? interruptOnTimeout : defaults.interruptOnTimeout);
        }
    }
}
