package dev.bulwark.spring.internal;

import dev.bulwark.Rejection;
import dev.bulwark.internal.spi.MillisText;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.springframework.http.HttpStatus;

/**
 * The answer to a refused request, the same for the servlet and the reactive filter: the route's status, a
 * {@code Retry-After} in seconds and an RFC 9457 {@code application/problem+json} body.
 *
 * <p>The body has the standard members {@code type}, {@code title} (the status's reason phrase), {@code status},
 * {@code detail} and {@code instance} (the request path), and the extension members {@code bulkhead},
 * {@code reason} (a {@link Rejection.Reason} name), {@code priority} (the request's {@link dev.bulwark.Priority}
 * name; only on a route that declares a priority setting), {@code limit}, {@code queueLimit}, {@code executing},
 * {@code queued}, {@code waitedMillis} and {@code retryAfter}. Immutable and thread-safe.
 *
 * @param status the HTTP status
 * @param retryAfterSeconds the {@code Retry-After} value
 * @param body the problem document, UTF-8
 */
public record Refusal(int status, long retryAfterSeconds, byte[] body) {

    /** The media type of the body. */
    public static final String PROBLEM_JSON = "application/problem+json";

    /** Checks the components. */
    public Refusal {
        Objects.requireNonNull(body, "body");
    }

    /**
     * Makes the answer to a refusal.
     *
     * @param route the route that refused
     * @param key the request's key
     * @param rejection what the bulkhead said
     * @param instance the request's path, for the {@code instance} member
     * @return the answer
     */
    public static Refusal of(SheddingRoute route, String key, Rejection rejection, String instance) {
        int status = route.status();
        long retryAfter = route.retryAfterSeconds(key);
        HttpStatus known = HttpStatus.resolve(status);
        String title = known == null ? "Request refused" : known.getReasonPhrase();
        StringBuilder json = new StringBuilder(384).append('{');
        member(json, "type", route.problemType()).append(',');
        member(json, "title", title).append(',');
        json.append("\"status\":").append(status).append(',');
        member(json, "detail", detail(rejection)).append(',');
        member(json, "instance", instance).append(',');
        member(json, "bulkhead", rejection.bulkheadName()).append(',');
        member(json, "reason", rejection.reason().name()).append(',');
        if (route.priority().declared()) {
            member(json, "priority", rejection.priority().name()).append(',');
        }
        json.append("\"limit\":").append(rejection.maxConcurrency()).append(',');
        json.append("\"queueLimit\":").append(rejection.maxQueue()).append(',');
        json.append("\"executing\":").append(rejection.executingCount()).append(',');
        json.append("\"queued\":").append(rejection.queuedCount()).append(',');
        json.append("\"waitedMillis\":").append(rejection.waited().toMillis()).append(',');
        json.append("\"retryAfter\":").append(retryAfter).append('}');
        return new Refusal(status, retryAfter, json.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Returns the {@code Retry-After} header's value.
     *
     * @return whole seconds, as text
     */
    public String retryAfterHeader() {
        return Long.toString(retryAfterSeconds);
    }

    static String detail(Rejection rejection) {
        String name = rejection.bulkheadName();
        return switch (rejection.reason()) {
            case QUEUE_FULL -> "Bulkhead '" + name + "' is at its limit of " + rejection.maxConcurrency()
                    + " concurrent requests and its queue of " + rejection.maxQueue() + " is full.";
            case WAIT_TIMEOUT -> "The request waited " + MillisText.of(rejection.waited())
                    + " ms for a slot in bulkhead '" + name + "' without getting one.";
            case PARTITION_LIMIT -> "Bulkhead '" + name + "' already holds its limit of " + rejection.maxConcurrency()
                    + " partitions, so none could be made for this request's key.";
            case UNAVAILABLE -> "Bulkhead '" + name + "' could not reach the store that holds its state.";
            case EVICTED -> "A request of higher priority (or, in a LIFO queue, a newer one) took this request's "
                    + "place in the full queue of bulkhead '" + name + "'.";
            case CLOSED -> "Bulkhead '" + name + "' is closed: the service is shutting down.";
            case WEIGHT_EXCEEDS_LIMIT -> "Bulkhead '" + name + "' lowered its limit to " + rejection.maxConcurrency()
                    + " slots, below what this request needs.";
        };
    }

    private static StringBuilder member(StringBuilder json, String name, String value) {
        json.append('"').append(name).append("\":\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"');
    }
}
