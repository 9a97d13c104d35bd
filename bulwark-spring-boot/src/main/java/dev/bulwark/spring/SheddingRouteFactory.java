package dev.bulwark.spring;

import dev.bulwark.Bulkhead;
import dev.bulwark.BulkheadConfig;
import dev.bulwark.PartitionedBulkhead;
import dev.bulwark.Priority;
import dev.bulwark.spring.internal.KeySource;
import dev.bulwark.spring.internal.Refusal;
import dev.bulwark.spring.internal.RouteLimiter;
import dev.bulwark.spring.internal.RoutePriority;
import dev.bulwark.spring.internal.SheddingRoute;
import dev.bulwark.spring.internal.SheddingRoutes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Turns {@link BulwarkSheddingProperties} into checked routes. Every problem is reported as an
 * {@link IllegalStateException} whose message starts with the offending property, so the startup failure names it.
 */
final class SheddingRouteFactory {

    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
            "TRACE");

    private SheddingRouteFactory() {
    }

    static SheddingRoutes routes(BulwarkSheddingProperties shedding, BulwarkPolicies policies,
                                 BulwarkProperties bulwark, SheddingKeyValidator keyValidator) {
        List<SheddingRoute> routes = new ArrayList<>();
        for (int i = 0; i < shedding.routes().size(); i++) {
            routes.add(route(i, shedding.routes().get(i), shedding.problemType(), shedding.includeCounts(),
                    keyValidator, policies, bulwark));
        }
        if (!routes.isEmpty()) {
            // At startup, not on the server thread of the first request shed (issue 37).
            Refusal.rehearse(routes.get(0));
        }
        return new SheddingRoutes(routes, shedding.order());
    }

    private static SheddingRoute route(int index, BulwarkSheddingProperties.Route route, String problemType,
                                       boolean includeCounts, SheddingKeyValidator keyValidator,
                                       BulwarkPolicies policies, BulwarkProperties bulwark) {
        String prefix = "bulwark.shedding.routes[" + index + "].";
        if (route == null) {
            throw new IllegalStateException(prefix.substring(0, prefix.length() - 1) + " is empty");
        }
        PathPattern pattern = pattern(prefix + "pattern", route.pattern());
        Set<String> methods = methods(prefix + "methods", route.methods());
        int status = route.status() == null ? 503 : route.status();
        if (status < 400 || status > 599) {
            throw new IllegalStateException(prefix + "status must be a 4xx or 5xx status (503 or 429, usually) "
                    + "but was " + status);
        }
        Duration retryAfter = route.retryAfter();
        if (retryAfter != null && (retryAfter.isNegative() || retryAfter.isZero())) {
            throw new IllegalStateException(prefix + "retry-after must be positive but was " + retryAfter);
        }
        String name = route.bulkhead();
        if (name == null || name.isBlank()) {
            throw new IllegalStateException(prefix + "bulkhead is required: the name of a bulkhead declared under "
                    + "bulwark.bulkheads");
        }
        BulwarkSheddingProperties.Key key = route.key();
        KeySource source = keySource(prefix + "key", key, pattern);
        RoutePriority priority = priority(prefix, route, !(source instanceof KeySource.None));
        RouteLimiter limiter = source instanceof KeySource.None
                ? new RouteLimiter.Single(bulkhead(prefix + "bulkhead", name, policies, bulwark))
                : partitioned(prefix, name, key, policies, bulwark);
        String defaultKey = key == null || key.defaultKey() == null || key.defaultKey().isBlank() ? "-"
                : key.defaultKey();
        int maxKeyLength = SheddingRoute.DEFAULT_MAX_KEY_LENGTH;
        if (key != null && key.maxLength() != null) {
            if (key.maxLength() < 1) {
                throw new IllegalStateException(prefix + "key.max-length must be at least 1 but was "
                        + key.maxLength());
            }
            maxKeyLength = key.maxLength();
        }
        return new SheddingRoute(index, pattern, methods, limiter, source, defaultKey, status, retryAfter,
                problemType, priority, includeCounts, maxKeyLength, keyPattern(prefix + "key.pattern", key),
                keyValidator == null ? null : keyValidator::accepts);
    }

    private static Pattern keyPattern(String property, BulwarkSheddingProperties.Key key) {
        if (key == null || key.pattern() == null) {
            return null;
        }
        try {
            return Pattern.compile(key.pattern());
        } catch (PatternSyntaxException invalid) {
            throw new IllegalStateException(property + " '" + key.pattern() + "' is not a valid regular expression: "
                    + invalid.getDescription(), invalid);
        }
    }

    private static RoutePriority priority(String prefix, BulwarkSheddingProperties.Route route, boolean keyed) {
        String header = route.priorityHeader();
        String name = route.defaultPriority();
        if (header == null && name == null) {
            return RoutePriority.NONE;
        }
        if (keyed) {
            // PartitionedBulkhead has no CallOptions form: its partitions would admit every request at NORMAL,
            // so a priority setting there would silently do nothing.
            throw new IllegalStateException(prefix + (header != null ? "priority-header" : "default-priority")
                    + " is set on a keyed route, but a keyed route admits every request at NORMAL priority "
                    + "(a per-key partitioned bulkhead takes no priority); remove it or the route's key");
        }
        if (header != null && header.isBlank()) {
            throw new IllegalStateException(prefix + "priority-header must not be blank");
        }
        Priority fallback = Priority.NORMAL;
        if (name != null) {
            fallback = RoutePriority.parse(name);
            if (fallback == null) {
                throw new IllegalStateException(prefix + "default-priority '" + name + "' is not a priority (one of "
                        + java.util.Arrays.toString(Priority.values()) + ", case-insensitive)");
            }
        }
        return new RoutePriority(header == null ? null : header.strip(), fallback, true);
    }

    private static PathPattern pattern(String property, String pattern) {
        if (pattern == null || pattern.isBlank()) {
            throw new IllegalStateException(property + " is required: a path pattern such as /api/**");
        }
        try {
            return PathPatternParser.defaultInstance.parse(pattern);
        } catch (PatternParseException invalid) {
            throw new IllegalStateException(property + " '" + pattern + "' is not a valid path pattern: "
                    + invalid.getMessage(), invalid);
        }
    }

    private static Set<String> methods(String property, List<String> methods) {
        Set<String> upper = new LinkedHashSet<>();
        for (String method : methods) {
            String name = method == null ? "" : method.trim().toUpperCase(Locale.ROOT);
            if (!METHODS.contains(name)) {
                throw new IllegalStateException(property + " has '" + method + "', not an HTTP method (one of "
                        + METHODS + ")");
            }
            upper.add(name);
        }
        return upper;
    }

    private static KeySource keySource(String property, BulwarkSheddingProperties.Key key, PathPattern pattern) {
        if (key == null) {
            return new KeySource.None();
        }
        List<KeySource> sources = new ArrayList<>();
        if (key.header() != null) {
            if (key.header().isBlank()) {
                throw new IllegalStateException(property + ".header must not be blank");
            }
            sources.add(new KeySource.Header(key.header().trim()));
        }
        if (key.pathVariable() != null) {
            String variable = key.pathVariable().trim();
            if (!Pattern.compile("\\{\\*?" + Pattern.quote(variable) + "[:}]").matcher(pattern.getPatternString())
                    .find()) {
                throw new IllegalStateException(property + ".path-variable '" + variable + "' is not a variable of "
                        + "the route's pattern " + pattern.getPatternString());
            }
            sources.add(new KeySource.PathVariable(variable));
        }
        if (Boolean.TRUE.equals(key.principal())) {
            sources.add(new KeySource.Principal());
        }
        if (sources.size() > 1) {
            throw new IllegalStateException(property + " sets more than one of header, path-variable and principal");
        }
        if (sources.isEmpty()) {
            if (key.globalBulkhead() != null || key.maxPartitions() != null || key.idleTimeout() != null
                    || key.defaultKey() != null || key.maxLength() != null || key.pattern() != null) {
                throw new IllegalStateException(property + " needs one of header, path-variable or principal");
            }
            return new KeySource.None();
        }
        return sources.get(0);
    }

    private static Bulkhead bulkhead(String property, String name, BulwarkPolicies policies,
                                     BulwarkProperties bulwark) {
        if (bulwark.bulkheads().containsKey(name)) {
            return policies.bulkhead(name);
        }
        return policies.bulkheads().find(name).orElseThrow(() -> new IllegalStateException(property + " names '"
                + name + "', but no bulkhead of that name is declared under bulwark.bulkheads (declared: "
                + bulwark.bulkheads().keySet() + ") or registered in the Bulkheads bean"));
    }

    private static RouteLimiter partitioned(String prefix, String name, BulwarkSheddingProperties.Key key,
                                            BulwarkPolicies policies, BulwarkProperties bulwark) {
        BulwarkProperties.BulkheadSettings settings = bulwark.bulkheads().get(name);
        if (settings == null) {
            throw new IllegalStateException(prefix + "bulkhead names '" + name + "', but a keyed route takes the "
                    + "settings of each partition from bulwark.bulkheads." + name + ", which is not declared "
                    + "(declared: " + bulwark.bulkheads().keySet() + ")");
        }
        BulkheadConfig config = PolicyFactory.bulkheadConfig(name, settings.over(bulwark.defaults().bulkhead()));
        PartitionedBulkhead.Builder<String> builder = PartitionedBulkhead.<String>builder().name(name)
                .defaultConfig(config);
        if (key.globalBulkhead() != null) {
            builder.globalLimit(bulkhead(prefix + "key.global-bulkhead", key.globalBulkhead(), policies, bulwark));
        }
        if (key.maxPartitions() != null) {
            if (key.maxPartitions() < 1) {
                throw new IllegalStateException(prefix + "key.max-partitions must be at least 1 but was "
                        + key.maxPartitions());
            }
            builder.maxPartitions(key.maxPartitions());
        }
        if (key.idleTimeout() != null) {
            if (key.idleTimeout().isNegative() || key.idleTimeout().isZero()) {
                throw new IllegalStateException(prefix + "key.idle-timeout must be positive but was "
                        + key.idleTimeout());
            }
            builder.idleTimeout(key.idleTimeout());
        }
        return new RouteLimiter.Partitioned(policies.register(builder.build()), config.maxWait());
    }
}
