package dev.bulwark.spring;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Inbound load shedding declared in the application's configuration, under {@code bulwark.shedding}: each route
 * sends the requests whose path matches its pattern through a named bulkhead, optionally one partition per key.
 *
 * <pre>
 * bulwark:
 *   bulkheads:
 *     api: { max-concurrency: 64, max-queue: 128, max-wait: 2s }
 *     tenant: { max-concurrency: 8, max-queue: 16, max-wait: 1s }
 *   shedding:
 *     routes:
 *       - pattern: /api/tenants/{tenant}/**
 *         bulkhead: tenant
 *         status: 429
 *         key: { path-variable: tenant }
 *       - pattern: /api/**
 *         bulkhead: api
 * </pre>
 *
 * <p>A request is admitted through the first route (in declared order) whose pattern and methods match it;
 * a request no route matches passes untouched. An unkeyed route may admit each request at a priority read from a
 * header ({@code priority-header}, {@code default-priority}), so that a more important request evicts a less
 * important queued one. The filters exist only when at least one route is declared and the
 * application is a servlet or reactive web application. Everything is checked when the context starts: an unknown
 * bulkhead, an invalid pattern, a status outside 400–599 or a contradictory key fails the startup with a message
 * naming the property. The full rules (status, {@code Retry-After}, problem body) are in
 * {@code docs/load-shedding.md}. Immutable (bound through its constructor).
 *
 * @param enabled whether the filters are installed (default {@code true} when routes are declared)
 * @param order the filters' order among the application's filters (default 0: after Spring Security's
 *     filter chain at -100, so that a principal key sees the authenticated user)
 * @param problemType the {@code type} member of every refusal's problem body (default {@code about:blank})
 * @param includeCounts whether a refusal's problem body carries the bulkhead's limits and counts ({@code limit},
 *     {@code queueLimit}, {@code executing}, {@code queued}, and the numbers in {@code detail}); default
 *     {@code true}, as documented since the filters exist. {@code false} keeps a client from learning the
 *     service's load, a keyed route's partition count, or, with a global bulkhead, every tenant's combined load
 * @param servlet settings that only apply to the servlet (Spring MVC) filter
 * @param routes the routes, first match wins
 */
@ConfigurationProperties("bulwark.shedding")
public record BulwarkSheddingProperties(Boolean enabled, Integer order, String problemType, Boolean includeCounts,
                                        Servlet servlet, List<Route> routes) {

    /** The {@code type} of a refusal's problem body when none is configured. */
    public static final String DEFAULT_PROBLEM_TYPE = "about:blank";

    /** Replaces absent settings with their defaults. */
    public BulwarkSheddingProperties {
        enabled = enabled == null ? Boolean.TRUE : enabled;
        order = order == null ? 0 : order;
        problemType = problemType == null || problemType.isBlank() ? DEFAULT_PROBLEM_TYPE : problemType;
        includeCounts = includeCounts == null ? Boolean.TRUE : includeCounts;
        servlet = servlet == null ? new Servlet(null) : servlet;
        routes = routes == null ? List.of() : List.copyOf(routes);
    }

    /**
     * Settings of the servlet filter.
     *
     * @param asyncTimeout the longest a request waits in a bulkhead's queue as a suspended servlet request before it
     *     leaves the queue and is refused with {@code WAIT_TIMEOUT} (default: the servlet container's async timeout,
     *     30 s in Tomcat); the bulkhead's own {@code max-wait} applies as well, whichever is shorter
     */
    public record Servlet(Duration asyncTimeout) {
    }

    /**
     * One route: which requests, which bulkhead, how a refusal answers.
     *
     * @param pattern the request path pattern in Spring's {@code PathPattern} syntax, matched against the path
     *     within the application (required)
     * @param methods the HTTP methods the route applies to (default: every method)
     * @param bulkhead the bulkhead's name: declared under {@code bulwark.bulkheads} or registered in the
     *     {@code Bulkheads} bean (required); with a key, the settings of every key's partition
     * @param status the status of a refusal, 400 to 599 (default 503 Service Unavailable; 429 Too Many Requests
     *     is the usual alternative)
     * @param retryAfter a fixed {@code Retry-After} for this route's refusals (default: derived from the bulkhead)
     * @param key where a per-key partition's key comes from (default: none, one bulkhead for the whole route)
     * @param priorityHeader the request header whose value names the request's {@code dev.bulwark.Priority}
     *     ({@code CRITICAL}, {@code HIGH}, {@code NORMAL}, {@code LOW}, {@code SHEDDABLE}, case-insensitive); a
     *     missing or unknown value means {@code defaultPriority} (default: no header, every request at
     *     {@code defaultPriority}); not on a keyed route
     * @param defaultPriority the priority of a request whose header is absent or names no priority, or of every
     *     request of a route without {@code priorityHeader} (a priority name, case-insensitive; default
     *     {@code NORMAL}); not on a keyed route
     */
    public record Route(String pattern, List<String> methods, String bulkhead, Integer status, Duration retryAfter,
                        Key key, String priorityHeader, String defaultPriority) {

        /** Copies the method list. */
        public Route {
            methods = methods == null ? List.of() : List.copyOf(methods);
        }
    }

    /**
     * Where a route's partition key comes from; exactly one of {@code header}, {@code path-variable} and
     * {@code principal} is set.
     *
     * @param header the request header whose value is the key
     * @param pathVariable the variable of the route's pattern whose value is the key
     * @param principal whether the authenticated principal's name is the key
     * @param defaultKey the key of requests that carry none (no header, no principal; default {@code "-"}):
     *     they share one partition
     * @param globalBulkhead a bulkhead every request of the route also needs a slot in, whatever its key
     *     (default: none)
     * @param maxPartitions the most partitions that exist at once (default 10 000); a request for a new key beyond
     *     that evicts an idle partition, and is refused with {@code PARTITION_LIMIT} only when the partitions looked
     *     at are all in use
     * @param idleTimeout how long a partition with no request in it is kept (default 1 minute)
     * @param maxLength the longest key accepted, in characters (default 256); a request with a longer key is
     *     refused with 400 and never makes a partition, whose name embeds the key
     * @param pattern a regular expression the whole key must match, such as {@code [A-Za-z0-9_-]+} (a charset)
     *     or {@code acme|globex} (an allow-list); a request whose key does not match is refused with 400
     *     (default: any key up to {@code maxLength}); a {@link SheddingKeyValidator} bean checks keys further
     */
    public record Key(String header, String pathVariable, Boolean principal, String defaultKey,
                      String globalBulkhead, Integer maxPartitions, Duration idleTimeout, Integer maxLength,
                      String pattern) {
    }
}
