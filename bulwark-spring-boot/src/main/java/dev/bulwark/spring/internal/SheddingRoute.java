package dev.bulwark.spring.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * One resolved shedding route: which requests it takes, through which bulkhead, and how a refusal answers.
 *
 * <p>Thread-safe. The only mutable state is the most recent queue wait, a racy statistic: it is written with a
 * plain volatile store by whichever admitted request finishes waiting (last writer wins, no sample is needed to be
 * exact), and read only to derive {@code Retry-After}.
 */
public final class SheddingRoute {

    private final int index;
    private final PathPattern pattern;
    private final Set<String> methods;
    private final RouteLimiter limiter;
    private final KeySource keySource;
    private final String defaultKey;
    private final int status;
    private final Duration retryAfter;
    private final String problemType;
    private final RoutePriority priority;
    private final boolean includeCounts;
    private final int maxKeyLength;
    /** The whole key must match it; {@code null}: any key of at most {@link #maxKeyLength} characters. */
    private final Pattern keyPattern;
    /** The application's check after length and pattern; {@code null}: none. */
    private final BiPredicate<String, String> keyValidator;
    /** Nanoseconds the last request that had to queue waited before it was admitted; 0 while none has. */
    private volatile long lastQueueWaitNanos;

    /**
     * Makes a route from checked settings.
     *
     * @param index the route's position in {@code bulwark.shedding.routes}
     * @param pattern the parsed pattern
     * @param methods the upper-case methods it applies to; empty for every method
     * @param limiter the bulkhead
     * @param keySource where the key comes from
     * @param defaultKey the key of requests that carry none
     * @param status the refusal status
     * @param retryAfter a fixed Retry-After, or {@code null} to derive it
     * @param problemType the problem body's {@code type}
     * @param priority where a request's priority comes from ({@link RoutePriority#NONE}: always NORMAL)
     */
    public SheddingRoute(int index, PathPattern pattern, Set<String> methods, RouteLimiter limiter,
                         KeySource keySource, String defaultKey, int status, Duration retryAfter,
                         String problemType, RoutePriority priority) {
        this(index, pattern, methods, limiter, keySource, defaultKey, status, retryAfter, problemType, priority,
                true, DEFAULT_MAX_KEY_LENGTH, null, null);
    }

    /** The longest key a keyed route accepts unless configured otherwise. */
    public static final int DEFAULT_MAX_KEY_LENGTH = 256;

    /**
     * Makes a route from checked settings, with the refusal body's and the key's rules.
     *
     * @param index the route's position in {@code bulwark.shedding.routes}
     * @param pattern the parsed pattern
     * @param methods the upper-case methods it applies to; empty for every method
     * @param limiter the bulkhead
     * @param keySource where the key comes from
     * @param defaultKey the key of requests that carry none
     * @param status the refusal status
     * @param retryAfter a fixed Retry-After, or {@code null} to derive it
     * @param problemType the problem body's {@code type}
     * @param priority where a request's priority comes from ({@link RoutePriority#NONE}: always NORMAL)
     * @param includeCounts whether a refusal's body carries the bulkhead's limits and counts
     * @param maxKeyLength the longest key accepted, at least 1
     * @param keyPattern a pattern the whole key must match, or {@code null} for any key
     * @param keyValidator the application's check of a key that passed length and pattern, given the bulkhead's
     *     name and the key, or {@code null} for none
     */
    public SheddingRoute(int index, PathPattern pattern, Set<String> methods, RouteLimiter limiter,
                         KeySource keySource, String defaultKey, int status, Duration retryAfter,
                         String problemType, RoutePriority priority, boolean includeCounts, int maxKeyLength,
                         Pattern keyPattern, BiPredicate<String, String> keyValidator) {
        this.index = index;
        this.pattern = Objects.requireNonNull(pattern, "pattern");
        this.methods = Set.copyOf(methods);
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.keySource = Objects.requireNonNull(keySource, "keySource");
        this.defaultKey = Objects.requireNonNull(defaultKey, "defaultKey");
        this.status = status;
        this.retryAfter = retryAfter;
        this.problemType = Objects.requireNonNull(problemType, "problemType");
        this.priority = Objects.requireNonNull(priority, "priority");
        this.includeCounts = includeCounts;
        if (maxKeyLength < 1) {
            throw new IllegalArgumentException("maxKeyLength must be at least 1 but was " + maxKeyLength);
        }
        this.maxKeyLength = maxKeyLength;
        this.keyPattern = keyPattern;
        this.keyValidator = keyValidator;
    }

    /**
     * Matches a request against this route.
     *
     * @param method the request's method
     * @param path the path within the application
     * @return the pattern's variables, or {@code null} when the route does not take the request
     */
    Map<String, String> match(String method, PathContainer path) {
        if (!methods.isEmpty() && !methods.contains(method)) {
            return null;
        }
        PathPattern.PathMatchInfo info = pattern.matchAndExtract(path);
        return info == null ? null : info.getUriVariables();
    }

    /**
     * Returns the key of a request from its variables and its header or principal value.
     *
     * @param variables the pattern's variables
     * @param headerOrPrincipal the header value or principal name, when the key source is one of those
     * @return the key, never {@code null}
     */
    String key(Map<String, String> variables, String headerOrPrincipal) {
        String key;
        if (keySource instanceof KeySource.PathVariable variable) {
            key = variables.get(variable.name());
        } else if (keySource instanceof KeySource.None) {
            key = "";
        } else {
            key = headerOrPrincipal;
        }
        return key == null || key.isBlank() ? defaultKey : key;
    }

    /**
     * Says why a keyed route does not accept a key, or {@code null} when it does. A route without a key, and the
     * route's default key, are always accepted. The client chooses the key, and each key is a partition whose name
     * embeds it: an unchecked 8,000-character key made a partition of about 16 KB, so length is always bounded.
     *
     * @param key the request's key, from {@link #key}
     * @return a sentence for the refusal's {@code detail} that does not repeat the key, or {@code null}
     */
    String keyProblem(String key) {
        if (keySource instanceof KeySource.None || key.equals(defaultKey)) {
            return null; // the default key is the operator's, not the client's: accepted whatever the rules
        }
        if (key.length() > maxKeyLength) {
            return "The request's partition key is longer than the " + maxKeyLength + " characters this route "
                    + "accepts.";
        }
        if (keyPattern != null && !keyPattern.matcher(key).matches() || !validatorAccepts(key)) {
            return "The request's partition key is not one this route accepts.";
        }
        return null;
    }

    private boolean validatorAccepts(String key) {
        if (keyValidator == null) {
            return true;
        }
        try {
            return keyValidator.test(limiter.name(), key);
        } catch (RuntimeException failure) {
            // Refused, as a key it said no to: a failing check must not let unchecked keys make partitions.
            Log.LOGGER.log(System.Logger.Level.WARNING, "The SheddingKeyValidator threw; refusing the key", failure);
            return false;
        }
    }

    /** Records how long a request that had to queue waited before it was admitted. */
    void recordQueueWait(long nanos) {
        lastQueueWaitNanos = Math.max(1, nanos);
    }

    /**
     * Returns the {@code Retry-After} of a refusal, in whole seconds: the route's fixed value; else the bulkhead's
     * maximum wait; else the most recent queue wait of an admitted request; else one second. Rounded up, at
     * least 1.
     *
     * @param key the refused request's key
     * @return seconds, at least 1
     */
    long retryAfterSeconds(String key) {
        Duration basis = retryAfter;
        if (basis == null) {
            Optional<Duration> maxWait = limiter.maxWait(key);
            long recent = lastQueueWaitNanos;
            basis = maxWait.orElse(recent > 0 ? Duration.ofNanos(recent) : Duration.ofSeconds(1));
        }
        long seconds = basis.getSeconds() + (basis.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }

    int index() {
        return index;
    }

    /**
     * Returns the route's bulkhead.
     *
     * @return the limiter
     */
    public RouteLimiter limiter() {
        return limiter;
    }

    KeySource keySource() {
        return keySource;
    }

    /**
     * Returns where a request's priority comes from.
     *
     * @return the priority settings
     */
    public RoutePriority priority() {
        return priority;
    }

    /**
     * Returns whether a refusal's body carries the bulkhead's limits and counts.
     *
     * @return {@code bulwark.shedding.include-counts}
     */
    boolean includeCounts() {
        return includeCounts;
    }

    int status() {
        return status;
    }

    String problemType() {
        return problemType;
    }

    /** Looked up when first needed: most applications never log from here. */
    private static final class Log {
        static final System.Logger LOGGER = System.getLogger(SheddingRoute.class.getName());
    }

    @Override
    public String toString() {
        return "SheddingRoute[" + index + ": " + pattern.getPatternString() + (methods.isEmpty() ? "" : " " + methods)
                + " -> " + limiter.name() + ", status " + status + "]";
    }
}
