package dev.bulwark.spring.internal;

import dev.bulwark.Priority;
import dev.bulwark.Rejection;
import dev.bulwark.internal.util.MillisText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * The answer to a refused request, the same for the servlet and the reactive filter: the route's status, a
 * {@code Retry-After} in seconds and an RFC 9457 {@code application/problem+json} body.
 *
 * <p>The body has the standard members {@code type}, {@code title} (the status's reason phrase), {@code status},
 * {@code detail} and {@code instance} (the request path), and the extension members {@code bulkhead},
 * {@code reason} (a {@link Rejection.Reason} name), {@code priority} (the request's {@link dev.bulwark.Priority}
 * name; only on a route that declares a priority setting), {@code limit}, {@code queueLimit}, {@code executing},
 * {@code queued} (these four, and the numbers in {@code detail}, only with {@code bulwark.shedding.include-counts}),
 * {@code waitedMillis} and {@code retryAfter}. A key the route does not accept is answered 400 by
 * {@link #invalidKey}. Every string is escaped by {@link #member}, so a client's key in {@code bulkhead} or
 * {@code instance} can neither break the JSON nor, with {@code <}, {@code >} and {@code &} written as
 * <code>&#92;u003c</code> and so on, read as markup to a client that sniffs it as HTML. Immutable and thread-safe.
 *
 * @param status the HTTP status
 * @param retryAfterSeconds the {@code Retry-After} value
 * @param body the problem document, UTF-8
 */
public record Refusal(int status, long retryAfterSeconds, byte[] body) {

    /**
     * The header every refusal carries, with the value {@value #NOSNIFF}: a browser must take the body for the
     * problem JSON it is, never sniff it as HTML (the body carries the client's own key and path).
     */
    public static final String CONTENT_TYPE_OPTIONS = "X-Content-Type-Options";
    /** The value of {@link #CONTENT_TYPE_OPTIONS}. */
    public static final String NOSNIFF = "nosniff";

    /** The media type of the body. */
    public static final String PROBLEM_JSON = "application/problem+json";

    /** Whether {@link #rehearse(SheddingRoute)} has run in this JVM: once is enough. */
    private static final AtomicBoolean REHEARSED = new AtomicBoolean();

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
        boolean counts = route.includeCounts();
        StringBuilder json = start(route, status, counts ? detail(rejection) : detailWithoutCounts(rejection),
                instance);
        member(json, "bulkhead", rejection.bulkheadName()).append(',');
        member(json, "reason", rejection.reason().name()).append(',');
        if (route.priority().declared()) {
            member(json, "priority", rejection.priority().name()).append(',');
        }
        if (counts) {
            json.append("\"limit\":").append(rejection.maxConcurrency()).append(',');
            json.append("\"queueLimit\":").append(rejection.maxQueue()).append(',');
            json.append("\"executing\":").append(rejection.executingCount()).append(',');
            json.append("\"queued\":").append(rejection.queuedCount()).append(',');
        }
        json.append("\"waitedMillis\":").append(rejection.waited().toMillis()).append(',');
        json.append("\"retryAfter\":").append(retryAfter).append('}');
        return new Refusal(status, retryAfter, json.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Makes the answer to a request whose key the route does not accept: {@code 400 Bad Request} with a problem
     * body whose {@code reason} is {@value #INVALID_KEY} and which does not repeat the key. No {@code Retry-After}
     * value matters (the same request fails again), so it is 1 second, as the header is always sent.
     *
     * @param route the route whose key rules refused it
     * @param problem why, from {@link SheddingRoute#keyProblem}
     * @param instance the request's path, for the {@code instance} member
     * @return the answer
     */
    public static Refusal invalidKey(SheddingRoute route, String problem, String instance) {
        StringBuilder json = start(route, 400, problem, instance);
        member(json, "reason", INVALID_KEY).append('}');
        return new Refusal(400, 1, json.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The {@code reason} of a request refused because of its key, not by a bulkhead. */
    public static final String INVALID_KEY = "INVALID_KEY";

    /** The standard members, up to and including the comma after {@code instance}. */
    private static StringBuilder start(SheddingRoute route, int status, String detail, String instance) {
        HttpStatus known = HttpStatus.resolve(status);
        String title = known == null ? "Request refused" : known.getReasonPhrase();
        StringBuilder json = new StringBuilder(384).append('{');
        member(json, "type", route.problemType()).append(',');
        member(json, "title", title).append(',');
        json.append("\"status\":").append(status).append(',');
        member(json, "detail", detail).append(',');
        member(json, "instance", instance).append(',');
        return json;
    }

    /**
     * Renders, once per JVM and while the application starts, the answer of every refusal reason for
     * {@code route} and throws the answers away, so that the first request the application sheds does not pay for
     * the rendering's first run on its server thread: loading the reason switch, linking each reason's detail
     * text and the problem body's builders, and parsing the problem media type. Measured in fresh JVMs (issue 37,
     * {@code SheddingFirstCallsTest}), that first run loaded 11 classes on the server thread and made the first
     * shed request take 5 to 9 ms there on a quiet machine, 10 to 45 ms on a loaded one, against 0.5 to 5 ms for
     * the next ones. Reads nothing but the route's
     * settings and its bulkhead's maximum wait; never throws (a failure is logged at DEBUG, and the first refusal
     * then pays the rendering). Honours the core's switch: with the system property
     * {@code dev.bulwark.rehearseFirstUse} set to {@code false} it does nothing.
     *
     * @param route a route of the application
     */
    public static void rehearse(SheddingRoute route) {
        if (REHEARSED.get() || !REHEARSED.compareAndSet(false, true)
                || "false".equalsIgnoreCase(System.getProperty("dev.bulwark.rehearseFirstUse"))) {
            return;
        }
        try {
            Duration[] waits = {Duration.ZERO, Duration.ofNanos(437_000), Duration.ofSeconds(2)};
            for (Rejection.Reason reason : Rejection.Reason.values()) {
                for (Duration waited : waits) {
                    of(route, "", new Rejection(route.limiter().name(), reason, 1, 0, 1, 0, waited,
                            Priority.NORMAL), "/").retryAfterHeader();
                }
            }
            // What the reactive filter parses for every refusal; the servlet container parses its own.
            MediaType.parseMediaType(PROBLEM_JSON);
        } catch (RuntimeException failure) {
            System.getLogger(Refusal.class.getName()).log(System.Logger.Level.DEBUG,
                    "Bulwark's shedding refusal rehearsal failed; the first refusal pays it", failure);
        }
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

    /** {@link #detail} without the limits and counts, for {@code include-counts: false}. */
    static String detailWithoutCounts(Rejection rejection) {
        String name = rejection.bulkheadName();
        return switch (rejection.reason()) {
            case QUEUE_FULL -> "Bulkhead '" + name + "' is at its limit of concurrent requests and its queue is full.";
            case PARTITION_LIMIT -> "Bulkhead '" + name + "' already holds as many partitions as it may, so none "
                    + "could be made for this request's key.";
            case WEIGHT_EXCEEDS_LIMIT -> "Bulkhead '" + name + "' lowered its limit below what this request needs.";
            default -> detail(rejection); // the others carry no count: only this request's own wait
        };
    }

    /**
     * Appends {@code "name":"value"} with the value escaped for JSON (RFC 8259) and for a reader that sniffs the
     * body as HTML: quote, backslash and every control character (C0, DEL and C1), and also {@code <}, {@code >},
     * {@code &} and the line separators U+2028 and U+2029 (which end a line in a script), all as
     * <code>&#92;uXXXX</code>. The module does not depend on a JSON library (an application need not have
     * Jackson), hence the hand-written escape.
     */
    static StringBuilder member(StringBuilder json, String name, String value) {
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
                    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '<' || c == '>' || c == '&'
                            || c == 0x2028 || c == 0x2029) {
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
