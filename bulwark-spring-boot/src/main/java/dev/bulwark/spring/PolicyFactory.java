package dev.bulwark.spring;

import dev.bulwark.BulkheadConfig;
import java.util.function.Supplier;

/** Builds policies from settings, naming the offending configuration key when a value is refused. */
final class PolicyFactory {

    private PolicyFactory() {
    }

    /**
     * Checks the defaults on their own, each under its own key ({@code bulwark.defaults.bulkhead}, ...), so that a bad
     * value set there is reported there, not under the first named policy that inherits it. A timeout's defaults are
     * checked only when they set a duration: a duration is required of each timeout, not of the defaults.
     */
    static void checkDefaults(BulwarkProperties.Defaults defaults) {
        bulkheadConfig("bulwark.defaults.bulkhead", "defaults", defaults.bulkhead());
        retry("bulwark.defaults.retry", "defaults", defaults.retry());
        if (defaults.timeout().duration() != null) {
            timeout("bulwark.defaults.timeout", "defaults", defaults.timeout());
        }
    }

    static BulkheadConfig bulkheadConfig(String name, BulwarkProperties.BulkheadSettings settings) {
        return bulkheadConfig("bulwark.bulkheads." + name, name, settings);
    }

    static dev.bulwark.Retry retry(String name, BulwarkProperties.RetrySettings settings) {
        return retry("bulwark.retries." + name, name, settings);
    }

    static dev.bulwark.Timeout timeout(String name, BulwarkProperties.TimeoutSettings settings) {
        return timeout("bulwark.timeouts." + name, name, settings);
    }

    private static BulkheadConfig bulkheadConfig(String key, String name,
                                                 BulwarkProperties.BulkheadSettings settings) {
        return checked(key, () -> {
            dev.bulwark.Bulkhead.Builder builder = dev.bulwark.Bulkhead.builder().name(name);
            if (settings.maxConcurrency() != null) {
                builder.maxConcurrency(settings.maxConcurrency());
            }
            if (settings.maxQueue() != null) {
                builder.maxQueue(settings.maxQueue());
            }
            if (settings.maxWait() != null) {
                builder.maxWait(settings.maxWait());
            }
            return builder.config();
        });
    }

    private static dev.bulwark.Retry retry(String key, String name, BulwarkProperties.RetrySettings settings) {
        return checked(key, () -> {
            dev.bulwark.Retry.Builder builder = dev.bulwark.Retry.builder().name(name);
            if (settings.maxRetries() != null) {
                builder.maxRetries(settings.maxRetries());
            }
            if (settings.delay() != null) {
                builder.delay(settings.delay());
            }
            if (settings.backoffInitial() != null || settings.backoffMax() != null) {
                if (settings.backoffInitial() == null || settings.backoffMax() == null) {
                    throw new IllegalArgumentException("backoff-initial and backoff-max must be set together but were "
                            + settings.backoffInitial() + " and " + settings.backoffMax());
                }
                builder.backoff(settings.backoffInitial(), settings.backoffMax());
            }
            if (settings.jitter() != null) {
                builder.jitter(settings.jitter());
            }
            if (settings.retryOn() != null && !settings.retryOn().isEmpty()) {
                for (Class<? extends Throwable> type : settings.retryOn()) {
                    // The bound is erased: Boot binds any class name, which would then never match a failure.
                    if (!Throwable.class.isAssignableFrom(type)) {
                        throw new IllegalArgumentException("retry-on must list exception classes but "
                                + type.getName() + " is not a Throwable");
                    }
                    builder.handle(type);
                }
            }
            return builder.build();
        });
    }

    private static dev.bulwark.Timeout timeout(String key, String name,
                                               BulwarkProperties.TimeoutSettings settings) {
        return checked(key, () -> {
            if (settings.duration() == null) {
                throw new IllegalArgumentException("duration must be set (here or in bulwark.defaults.timeout)");
            }
            return dev.bulwark.Timeout.builder().name(name).timeout(settings.duration())
                    .interruptOnTimeout(Boolean.TRUE.equals(settings.interruptOnTimeout())).build();
        });
    }

    private static <T> T checked(String key, Supplier<T> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException refused) {
            throw new IllegalArgumentException(key + ": " + refused.getMessage(), refused);
        }
    }
}
